"""The browser client's files: HTML pages and plain ES modules (no build step).

Served by `server.http`; installed as package data so that an installed
``daide`` serves them too.
"""
