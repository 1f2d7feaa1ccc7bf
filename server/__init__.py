"""The DAIDE server: trio TCP, the lobby, the game actors, SQLite (docs/server.md)."""
