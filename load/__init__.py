"""The load harness (`make load`, ``python -m load``): many games of RandBots against one server.

Not packaged: it is run from the repository root.  `load.__main__` starts
the server in its own process (`load.server_proc`), then the bots in one or
more other processes (`load.bot_proc`), and reports turn latency, phases
per second, the server's peak memory and errors (`load.report`).
"""
