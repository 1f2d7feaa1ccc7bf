"""The layer boundaries of docs/architecture.md, checked by parsing every import.

Every ``import`` anywhere in a module counts - at the top, under ``if
TYPE_CHECKING``, inside a function body (a lazy import hides a dependency, it
does not remove it) - and so does ``importlib.import_module("x...")``.  From
them the test builds the package graph, and fails on an edge the layering does
not allow (an upward or sideways edge) and on any cycle; and the module graph,
and fails on any cycle of modules - two that import each other, directly or
round a longer loop (``test_module_graph_has_no_cycle`` says how it counts).
The pure cores use no trio, structlog or construct; construct lives in
protocol/frames.py alone.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
from collections import deque
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Our package -> the packages of ours it may import (docs/architecture.md, "Who
#: may import whom").  At the bottom maps/ and native/ import nothing of ours, the
#: order model orders/ only native/ (its compiled build), protocol/ only orders/ and
#: adjudicator/ maps/ and orders/; engine/ sits on them; the programs on top.
LAYERS: dict[str, frozenset[str]] = {
    "maps": frozenset(),
    # the loader of the mypyc-compiled packages: each of them imports it first thing
    "native": frozenset(),
    # the one order model (compiled with the adjudicator, so it may load native/)
    "orders": frozenset({"native"}),
    "protocol": frozenset({"orders", "native"}),
    "adjudicator": frozenset({"maps", "orders", "native"}),
    "engine": frozenset({"protocol", "maps", "orders", "adjudicator", "native"}),
    # map pictures: above maps/ and engine/, below server/ and daide/ (docs/render.md)
    "render": frozenset({"protocol", "maps", "orders", "engine"}),
    "bots": frozenset({"protocol", "maps", "orders", "adjudicator", "engine"}),
    "server": frozenset({"protocol", "maps", "orders", "adjudicator", "engine", "render", "web"}),
    "web": frozenset(),
    "tournament": frozenset({"protocol", "maps", "orders", "adjudicator", "engine", "render", "bots",
                             "server"}),
    # the bot checker (daide check-bot): an embedded server and the bots, and the
    # tournament's handling of external programs
    "botcheck": frozenset({"protocol", "maps", "orders", "adjudicator", "engine", "bots", "server",
                           "tournament"}),
    "daide": frozenset({"protocol", "maps", "orders", "adjudicator", "engine", "render", "bots", "server",
                        "tournament", "botcheck", "web"}),
    "benchmarks": frozenset({"protocol", "maps", "orders", "adjudicator", "engine", "render", "bots",
                             "server", "tournament", "daide", "load"}),
    "load": frozenset({"protocol", "maps", "orders", "adjudicator", "engine", "bots", "server"}),
    "fuzz": frozenset({"protocol", "maps", "orders", "adjudicator", "engine", "server"}),
    "tools": frozenset({"native"}),  # builds the compiled packages
}
#: Third-party packages a layer must not use: the cores are pure (no I/O framework,
#: no logging), and only protocol/frames.py speaks construct (test below).
THIRD_PARTY = {
    "protocol": {"trio", "structlog"},
    "maps": {"trio", "structlog", "construct"},
    "native": {"trio", "structlog", "construct"},
    "orders": {"trio", "structlog", "construct"},
    "adjudicator": {"trio", "structlog", "construct"},
    "engine": {"trio", "structlog", "construct"},
    "render": {"trio", "structlog"},
}


def _imported(node: ast.AST) -> Iterator[str]:
    """The absolute module names one AST node imports (relative imports stay inside)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        yield node.module
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
          and node.func.attr == "import_module" and node.args):
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            yield arg.value
        elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
            yield str(arg.values[0].value)  # f"daide.{name}": its package is known


@functools.cache
def _imports(path: Path) -> frozenset[str]:
    """Top-level names of every module ``path`` imports, wherever the import stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return frozenset(name.split(".")[0] for node in ast.walk(tree) for name in _imported(node))


def _packages() -> list[str]:
    """Our top-level packages and script folders: every folder with Python source of
    its own at its top (a virtualenv such as make bench's has none there)."""
    return sorted(p.name for p in ROOT.iterdir()
                  if p.is_dir() and p.name not in {"tests", "build", "docs"}
                  and not p.name.startswith(".") and not (p / "pyvenv.cfg").exists()
                  and any(p.glob("*.py")))


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@functools.cache
def _graph() -> dict[tuple[str, str], tuple[str, ...]]:
    """(importer package, imported package) -> the modules with such an import."""
    ours = set(_packages())
    edges: dict[tuple[str, str], list[str]] = {}
    for package in ours:
        for path in _modules(package):
            for name in _imports(path) & ours - {package}:
                edges.setdefault((package, name), []).append(path.relative_to(ROOT).as_posix())
    return {edge: tuple(sorted(where)) for edge, where in edges.items()}


def test_every_package_has_a_layer() -> None:
    """A new package must say where it stands before it can import anything."""
    assert [p for p in _packages() if p not in LAYERS] == []


def test_no_upward_or_sideways_import() -> None:
    wrong = [f"{a} -> {b} ({', '.join(where)})" for (a, b), where in sorted(_graph().items())
             if b not in LAYERS.get(a, frozenset())]
    assert wrong == []


def test_package_graph_has_no_cycle() -> None:
    """Depth-first search over the package graph; a back edge is a cycle."""
    after: dict[str, set[str]] = {}
    for a, b in _graph():
        after.setdefault(a, set()).add(b)
    cycles: list[str] = []
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(after.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for package in sorted(after):
        if package not in state:
            visit(package, [package])
    assert cycles == []


def test_layers_themselves_have_no_cycle() -> None:
    """The allowed edges form a DAG: some order puts every package above its imports."""
    placed: list[str] = []
    left = dict(LAYERS)
    while left:
        ready = [p for p, deps in left.items() if deps <= set(placed)]
        assert ready, f"cycle among {sorted(left)}"
        placed += ready
        for p in ready:
            del left[p]


@pytest.mark.parametrize("package", sorted(THIRD_PARTY))
def test_pure_layers_use_no_io_framework(package: str) -> None:
    used = [f"{path.relative_to(ROOT).as_posix()} imports {name}"
            for path in _modules(package) for name in sorted(_imports(path) & THIRD_PARTY[package])]
    assert used == []


def test_the_scanner_sees_lazy_imports() -> None:
    """A function-level import and an import_module call both count."""
    source = ("def f():\n    from maps.loader import x\n"
              "def g():\n    importlib.import_module('server.app')\n")
    tree = ast.parse(source)
    found = {name.split(".")[0] for node in ast.walk(tree) for name in _imported(node)}
    assert found == {"maps", "server"}


# --- the module graph -------------------------------------------------------------------

def _module_name(path: Path) -> str:
    """``a/b/c.py`` -> ``a.b.c``; a package's ``a/b/__init__.py`` -> ``a.b``."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _our_modules() -> dict[str, Path]:
    """Module name -> its file, for every module of our packages."""
    return {_module_name(path): path for package in _packages() for path in _modules(package)}


def _owner(name: str, modules: Collection[str]) -> str | None:
    """The module of ours an import of ``name`` runs: ``name`` itself, or the
    longest part of it that is one of ours (``a.b.X`` names ``a.b``); None if not ours."""
    while name not in modules:
        if "." not in name:
            return None
        name = name.rsplit(".", 1)[0]
    return name


def _module_targets(node: ast.AST, here: str, is_package: bool,
                    modules: Collection[str]) -> Iterator[str]:
    """The modules of ours one AST node of module ``here`` imports."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if (got := _owner(alias.name, modules)) is not None:
                yield got
    elif isinstance(node, ast.ImportFrom):
        if node.level:  # relative: from the package ``here`` is (or is in)
            parts = here.split(".") if is_package else here.split(".")[:-1]
            parts = parts[:len(parts) - node.level + 1]
            base = ".".join(parts + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            if submodule in modules:  # ``from pkg import submodule``
                yield submodule
            elif (got := _owner(base, modules)) is not None:  # a name of the module (or __init__)
                yield got
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
          and node.func.attr == "import_module" and node.args):
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            if (got := _owner(arg.value, modules)) is not None:
                yield got
        elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
            # f"daide.{name}": any module the known start names (a __main__ is run, never imported)
            prefix = str(arg.values[0].value)
            yield from (m for m in modules if m.startswith(prefix) and not m.endswith(".__main__"))


@functools.cache
def _module_graph() -> dict[str, dict[str, int]]:
    """Module -> the modules of ours it imports -> the line of the first such import."""
    modules = _our_modules()
    graph: dict[str, dict[str, int]] = {}
    for here, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        imports: dict[str, int] = {}
        for node in ast.walk(tree):
            for target in _module_targets(node, here, is_package, modules):
                if target != here:
                    line = getattr(node, "lineno", 0)
                    imports[target] = min(imports.get(target, line), line)
        graph[here] = imports
    return graph


def _shortest_cycles(graph: Mapping[str, Collection[str]]) -> list[tuple[str, ...]]:
    """The shortest cycle through each node that is on one, each once.

    A breadth-first search from every node back to itself; a cycle is given
    from its least node (``("a", "b")`` is a -> b -> a), and the list is
    sorted.  Every module of a strongly connected component of more than one
    module is on at least one of them.
    """
    cycles: set[tuple[str, ...]] = set()
    for start in sorted(graph):
        came_from: dict[str, str] = {}
        queue = deque([start])
        last = None
        while queue and last is None:
            node = queue.popleft()
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    last = node
                    break
                if nxt not in came_from:
                    came_from[nxt] = node
                    queue.append(nxt)
        if last is None:
            continue
        path = [last]
        while path[-1] != start:
            path.append(came_from[path[-1]])
        path.reverse()
        least = path.index(min(path))
        cycles.add(tuple(path[least:] + path[:least]))
    return sorted(cycles, key=lambda cycle: (len(cycle), cycle))


def test_module_graph_has_no_cycle() -> None:
    """No two modules import each other, directly or round a longer loop.

    Every import of a module of ours counts, as for the package graph: at the top,
    under ``if TYPE_CHECKING``, inside a function, ``importlib.import_module`` (an
    f-string's known start stands for every module it may name).  ``import a.b``
    and ``from a.b import Name`` import the module ``a.b`` (for a package, its
    ``__init__``); ``from a import b`` where ``a.b`` is a module imports ``a.b``.
    The parent packages Python runs first are not counted: inside the package its
    ``__init__`` is already under way, and between packages the package graph
    above has no cycle.  ``from package import Name`` counts as importing the
    package's ``__init__`` even inside that package, and nothing is excused: a
    submodule that does it while the ``__init__`` imports that submodule is a real
    cycle (it must import ``Name`` from the module defining it).
    """
    graph = _module_graph()
    modules = _our_modules()
    cycles = _shortest_cycles(graph)
    shown = []
    for cycle in cycles:
        steps = zip(cycle, cycle[1:] + cycle[:1], strict=True)
        where = ", ".join(f"{modules[a].relative_to(ROOT).as_posix()}:{graph[a][b]}" for a, b in steps)
        shown.append(f"{' -> '.join(cycle + cycle[:1])}  ({where})")
    assert cycles == [], "modules that import each other:\n" + "\n".join(shown)


def test_the_cycle_finder_gives_the_shortest_cycles() -> None:
    graph = {
        "a": {"b"}, "b": {"a", "c"}, "c": {"d"}, "d": {"b", "e"}, "e": set(),  # a-b, b-c-d
        "p": {"q"}, "q": {"r", "s"}, "r": {"p"}, "s": {"r"},  # p-q-r; through s only p-q-s-r
        "x": {"y"}, "y": {"z"},  # no cycle
    }
    assert _shortest_cycles(graph) == [("a", "b"), ("b", "c", "d"), ("p", "q", "r"), ("p", "q", "s", "r")]
    assert _shortest_cycles({"x": {"y"}, "y": set()}) == []


def test_the_module_scanner_resolves_what_is_imported() -> None:
    """A submodule named in ``from``, a package as its __init__, a name as its
    module, relative imports, and an f-string's every possible module."""
    modules = {"pkg", "pkg.sub", "pkg.other", "pkg.__main__", "pkg.deep", "pkg.deep.leaf"}
    source = ("import pkg\nfrom pkg import sub, Name\nfrom pkg.other import thing\n"
              "import pkg.deep.leaf\nfrom . import other\nfrom .deep import leaf\n"
              "import trio\nfrom maps import Map\n"
              "def f():\n    importlib.import_module(f'pkg.{name}')\n")
    found = {target for node in ast.walk(ast.parse(source))
             for target in _module_targets(node, "pkg.sub", False, modules)}
    assert found == {"pkg", "pkg.sub", "pkg.other", "pkg.deep", "pkg.deep.leaf"}
    relative = ast.parse("from . import leaf\nfrom .. import up\n")
    assert {t for node in ast.walk(relative)
            for t in _module_targets(node, "pkg.deep", True, modules)} == {"pkg.deep.leaf", "pkg"}


def test_no_class_name_is_defined_twice() -> None:
    """One name per concept: a class name names one class in the product code, so no
    module has to import one as another name (``Order as POrder``)."""
    where: dict[str, list[str]] = {}
    for package in _packages():
        for path in _modules(package):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    where.setdefault(node.name, []).append(path.relative_to(ROOT).as_posix())
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


def test_construct_lives_in_one_module() -> None:
    users = []
    for package in _packages():
        for path in _modules(package):
            if "construct" in _imports(path):
                users.append(path.relative_to(ROOT).as_posix())
    assert users == ["protocol/frames.py"]


# --- the repository stands alone ------------------------------------------------------

#: How a file would reach into the team's reference folder beside the clone
#: (its parent-relative path, an absolute path to it, ``<folder>/daide/...``) or cite its files by name
#: (the upper-case PROTOCOL and ARCHITECTURE pages; ours are docs/protocol.md and
#: docs/architecture.md).  Spelt with classes so that this file is the one allowed.
_OUTSIDE = re.compile(rb"\.\./[s]hared|(?<![\w-])[s]hared/|(?<![\w/])(?:[P]ROTOCOL|[A]RCHITECTURE)\.md")
#: A citation of docs/protocol.md: "docs/protocol.md §9.1", also "§8.3, 8.4" and a
#: section number on the next comment line.
_CITATION = re.compile(r"protocol\.md\)?\s*(?:#\s*)?§\s*(\d+[a-z]?(?:\.\d+)?)"
                       r"((?:\s*(?:,|/|and)\s*§?\d+[a-z]?(?:\.\d+)?)*)")


@functools.cache
def _tracked_files() -> tuple[tuple[str, bytes], ...]:
    """(path, contents) of every file git tracks, read once for the tests below."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no list of tracked files")  # e.g. an unpacked sdist
    files = []
    for name in listed.stdout.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file():
            files.append((name, path.read_bytes()))
    return tuple(files)


def test_no_tracked_file_refers_to_the_reference_folder() -> None:
    """Nothing of the project may read, cite or link the team's reference folder: a
    clone has no such folder beside it.  Facts the tests need are in tests/data (with their sources),
    the protocol is restated in docs/protocol.md, the documents in docs/references.md."""
    this = Path(__file__).resolve().relative_to(ROOT).as_posix()
    offenders = [f"{name}: {m.group().decode()}" for name, data in _tracked_files()
                 if name != this for m in _OUTSIDE.finditer(data)]
    assert offenders == []


def test_every_cited_protocol_section_exists() -> None:
    """Each "docs/protocol.md §N" in code, tests and docs names a section of that page."""
    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^#{2,3} (\d+[a-z]?(?:\.\d+)?)\.? ", page, re.MULTILINE))
    missing = []
    for name, data in _tracked_files():
        for m in _CITATION.finditer(data.decode("utf-8", "replace")):
            cited = [m.group(1), *re.findall(r"\d+[a-z]?(?:\.\d+)?", m.group(2))]
            missing += [f"{name}: §{n}" for n in cited if n not in sections]
    assert "9.3" in sections and "12a" in sections
    assert missing == []
