"""What people read: every string (zh and en), names of plays and seats, the hand and table
text, keyboards and their callback data. Imports the engines only (and ``telegram``'s
keyboard types); never the service, storage or the edges."""
