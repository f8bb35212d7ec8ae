"""The Telegram edge: the application, its update lanes, handlers and logging. Imports the
service's public face, the presentation and the configuration; nothing imports it but
``bot.__main__``."""
