"""The compiled packages (native/): used only when the build matches the
sources, all of them or none, and equal to the pure-Python ones.

The rest of the suite runs whichever implementation the product runs
(``adjudicator.COMPILED``); the tests here run the pure-Python one in a
subprocess (``DAIDE_PURE_PYTHON=1``) and compare.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import adjudicator as A
import native
from engine.variants import standard_map

ROOT = Path(__file__).resolve().parent.parent


# --- the manifest check ------------------------------------------------------------


def _fake_tree(tmp_path: Path) -> tuple[Path, Path]:
    """A source tree with the source packages, and a build home for it."""
    src = tmp_path / "src"
    for n, package in enumerate(native.SOURCE_PACKAGES):
        (src / package).mkdir(parents=True)
        (src / package / "mod.py").write_text(f"X = {n}\n", encoding="utf-8")
    home = tmp_path / "site" / native.BUILD_DIR
    for package in (*native.COMPILED_PACKAGES, "native"):
        (home / package).mkdir(parents=True)
    manifest = {"ext_suffix": native.ext_suffix(), "sources": native.source_digests(src)}
    (home / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return src, home


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    src, home = _fake_tree(tmp_path)
    monkeypatch.setattr(native, "build_home", lambda: home)
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    monkeypatch.setattr(native, "__path__", list(native.__path__))
    return src, home


def test_a_build_of_exactly_these_sources_is_used(tree: tuple[Path, Path]) -> None:
    src, home = tree
    assert native.matching_build(src) == home
    for package in native.COMPILED_PACKAGES:
        path = [str(src / package)]
        assert native.activate(package, path) is True
        assert path == [str(home / package), str(src / package)]
    # the group's shared library is found through the loader package
    assert native.__path__[0] == str(home / "native")


def test_an_edited_source_disables_the_build(tree: tuple[Path, Path]) -> None:
    src, _home = tree
    (src / "maps" / "mod.py").write_text("Y = 3\n", encoding="utf-8")
    assert native.matching_build(src) is None
    path = [str(src / "adjudicator")]
    assert native.activate("adjudicator", path) is False
    assert path == [str(src / "adjudicator")]


def test_the_choice_is_made_once_for_all_packages(tree: tuple[Path, Path]) -> None:
    """A source edited after the first package chose does not split the group
    (a class compiled in one package and interpreted in another)."""
    src, _home = tree
    first, *others = native.COMPILED_PACKAGES
    assert native.activate(first, [str(src / first)]) is True
    (src / first / "mod.py").write_text("Z = 9\n", encoding="utf-8")
    for package in others:
        assert native.activate(package, [str(src / package)]) is True


def test_a_new_source_file_disables_the_build(tree: tuple[Path, Path]) -> None:
    src, _home = tree
    (src / "adjudicator" / "extra.py").write_text("", encoding="utf-8")
    assert native.matching_build(src) is None


def test_a_package_missing_from_the_build_disables_it(tree: tuple[Path, Path]) -> None:
    src, home = tree
    (home / native.COMPILED_PACKAGES[0]).rmdir()
    assert native.matching_build(src) is None


def test_only_listed_packages_may_activate(tree: tuple[Path, Path]) -> None:
    src, _home = tree
    with pytest.raises(ValueError, match="COMPILED_PACKAGES"):
        native.activate("maps", [str(src / "maps")])


def test_the_compiled_set_is_the_pure_cores() -> None:
    assert native.is_compiled("adjudicator/convoys.py") and native.is_compiled("protocol/codec.py")
    assert not native.is_compiled("server/game.py")             # the server stays interpreted
    assert not native.is_compiled("protocol/messages.py")       # NOT_COMPILED
    assert not native.is_compiled("render/svg.py")              # not a compiled package
    digests = native.source_digests(ROOT)
    assert "protocol/codec.py" in digests
    assert not any(name.startswith("server/") for name in digests)


def test_another_interpreter_or_no_manifest_disables_the_build(tree: tuple[Path, Path]) -> None:
    src, home = tree
    manifest = json.loads((home / "manifest.json").read_text(encoding="utf-8"))
    manifest["ext_suffix"] = ".cpython-39-x86_64-linux-gnu.so"
    (home / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert native.matching_build(src) is None
    (home / "manifest.json").unlink()
    assert native.matching_build(src) is None


def test_the_environment_switch_forces_pure_python(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    src, _home = tree
    monkeypatch.setenv(native.PURE_ENV, "1")
    assert native.matching_build(src) is None


def test_the_packages_report_which_modules_run() -> None:
    for package in native.COMPILED_PACKAGES:
        __import__(package)
    modules = [m for name, m in sys.modules.items()
               if name.count(".") == 1 and native.is_compiled(name.replace(".", "/") + ".py")]
    assert modules
    assert {m.__name__.split(".")[0] for m in modules} == set(native.COMPILED_PACKAGES)
    # all of them compiled, or none
    assert {not str(m.__file__).endswith(".py") for m in modules} == {A.COMPILED}
    if A.COMPILED:
        assert all(str(native.build_home()) in str(m.__file__) for m in modules)
        assert native.matching_build(ROOT) is not None


def test_the_order_model_is_loaded_once_whichever_package_comes_first() -> None:
    """``orders.values`` imported before the adjudicator (as the protocol does)
    is the very module the compiled adjudicator uses: an order the protocol
    parses is an instance of the adjudicator's classes."""
    code = (
        "import orders.values as v\n"
        "from protocol.orders import plain_order\n"
        "from protocol.tokens import STANDARD\n"
        "import adjudicator, orders\n"
        "node = (('ENG', 'FLT', 'LON'), 'MTO', 'NTH')\n"
        "order = plain_order(node, STANDARD.categories)\n"
        "assert type(order) is adjudicator.Move is v.Move, type(order)\n"
        "print(orders.COMPILED, adjudicator.COMPILED, v.__file__.endswith('.py'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(A.COMPILED), str(A.COMPILED), str(not A.COMPILED)]


# --- the same results ------------------------------------------------------------------

# Plays seeded random games and prints every phase's results and next state.
_GAMES = """
import random, sys
import adjudicator as A
from engine.variants import standard_map

m = standard_map()
rules = {"2.4": A.DATC_2_4, "3.0": A.DATC_3_0, "aoa": A.DATC_2_4.with_aoa()}
print("compiled", A.COMPILED)
for game, (seed, name) in enumerate([(11, "2.4"), (12, "3.0"), (13, "aoa")]):
    rng = random.Random(seed)
    state = A.initial_state(m)
    while state.phase.year < 1907:
        orders = {}
        for power in m.powers:
            if state.phase.kind == "adjustment" and state.adjustment(power) > 0:
                options = [o for o in A.adjustment_orders(m, state, power)]
                orders[power] = rng.sample(options, min(len(options), 2))
                continue
            chosen = []
            for opts in A.legal_orders(m, state, power).values():
                kinds = sorted({type(o).__name__ for o in opts})
                kind = rng.choice(kinds)
                chosen.append(rng.choice([o for o in opts if type(o).__name__ == kind]))
            orders[power] = chosen
        # now and then an order for a foreign unit (NYU) and a move to where
        # the unit stands (FAR; kept as the ORD result in the AOA game)
        if state.phase.kind == "movement" and rng.random() < 0.5:
            u = rng.choice(state.units)
            other = next(p for p in m.powers if p != u.power)
            orders.setdefault(other, []).append(A.Hold(u))
            v = rng.choice(state.units)
            orders.setdefault(v.power, []).append(A.Move(v, A.Location(v.location.province)))
        notes = [A.validate(m, state, p, o, (), rules[name]) for p in sorted(orders) for o in orders[p]]
        result = A.advance(m, state, orders, rules[name])
        print(name, state.phase, notes)
        print(repr(result.results))
        print(repr((result.state, result.ownership_updated, result.winner, result.eliminated)))
        state = result.state
"""


def _play(pure: bool) -> list[str]:
    # pure=False runs what this test process runs (so, under DAIDE_PURE_PYTHON=1,
    # pure Python on both sides - the comparison still holds).
    env = dict(os.environ)
    if pure:
        env[native.PURE_ENV] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _GAMES], cwd=ROOT, env=env, capture_output=True, text=True,
        check=True, timeout=300,
    )
    return done.stdout.splitlines()


def test_pure_python_and_the_running_implementation_agree() -> None:
    pure = _play(pure=True)
    running = _play(pure=False)
    assert pure[0] == "compiled False"
    assert running[0] == f"compiled {A.COMPILED}"
    assert len(pure) > 100
    assert pure[1:] == running[1:]


def test_pure_python_passes_the_datc() -> None:
    env = dict(os.environ, **{native.PURE_ENV: "1"})
    code = "import sys; from daide.cli import main; sys.exit(main(['datc']))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.rstrip().splitlines()[-1] == "158 passed, 0 failed"


def test_one_phase_in_process_matches_a_known_outcome() -> None:
    # A fixed position through whichever implementation runs here.
    m = standard_map()
    s = A.initial_state(m)
    rng = random.Random(5)
    orders = {
        p: [rng.choice(opts) for opts in A.legal_orders(m, s, p).values()] for p in m.powers
    }
    result = A.advance(m, s, orders)
    assert result.phase == A.Phase("SPR", 1901)
    assert len(result.results) == 22
    assert result.state.phase.season in ("SUM", "FAL")
    assert sorted(u.location.province for u in result.state.units) == [
        u.location.province for u in result.state.units
    ]
