"""The DAIDE server: trio TCP, the lobby, the game actors, SQLite (docs/server.md).

The game's synchronous per-message path (`native.COMPILED_MODULES`) runs
compiled with mypyc when the build matches its sources; the rest of the
package is interpreted.
"""

from native import activate as _activate

COMPILED: bool = _activate(__name__, __path__)
