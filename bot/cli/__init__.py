"""The command line without Telegram: a terminal game and the simulator. Imports the engines
and the presentation only."""
