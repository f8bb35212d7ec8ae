"""What people read: every string (zh and en), names of plays and seats, the hand and table
text, keyboards and their callback data, a replay's steps, the /stats chart. Imports the
engines only (and matplotlib, lazily, for the chart); never the service, storage or the
edges."""
