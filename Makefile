# The README's first two commands: `make demo` and `make test`.
# Everything installs into .venv with nothing but python3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Two installs, each with its own stamp: BASE_STAMP is the project and its
# dependencies only - all that `make demo` needs, so that a fresh clone plays
# at once; STAMP adds every extra (test, dev - mypy, whose mypyc compiles the
# native build -, cluster), so a `make test` after a `make demo` installs the rest.
BASE_STAMP := $(VENV)/.installed-base
STAMP      := $(VENV)/.installed
# pip's version notice is no news to a make run; errors still show.
PIP := $(BIN)/python -m pip --disable-pip-version-check install --quiet

.PHONY: install demo serve test bench lint clean

# The venv as it comes (its bundled pip installs editable projects; no upgrade).
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BASE_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) -e .
	touch $(BASE_STAMP)

# Everything, the demo's install included (so a `make demo` after it installs nothing).
$(STAMP): pyproject.toml | $(BIN)/python
	$(PIP) -e '.[test,dev,cluster]'
	touch $(STAMP) $(BASE_STAMP)

# The hot packages (native.COMPILED_PACKAGES: the order model, the
# adjudicator, the protocol and the engine) compiled with mypyc into the venv's site-packages (never into
# the source tree): rebuilt when a source it was made from changes, and used
# only while it matches them (native/__init__.py).  Without a C compiler the
# build is skipped and they run as pure Python.
NATIVE         := $(VENV)/.native
NATIVE_SOURCES := $(wildcard native/*.py orders/*.py adjudicator/*.py protocol/*.py engine/*.py maps/*.py) \
                  tools/compile_native.py

$(NATIVE): $(STAMP) $(NATIVE_SOURCES)
	$(BIN)/python tools/compile_native.py
	touch $(NATIVE)

install: $(STAMP) $(NATIVE)

# Paced (0.3 s a phase) so that the game can be followed on the printed web page
# while it plays; DEMO_ARGS="--pace 0" plays at full speed, "--stay" keeps the page up.
# The demo needs neither the extras nor the compiled build (minutes of pip and
# mypyc on a fresh clone, for a game paced to be watched): it plays at once in
# pure Python, or compiled if an earlier `make install` left a build matching
# the sources (native/__init__.py decides; the demo says which in its 2nd line).
DEMO_ARGS ?= --pace 0.3
demo: $(BASE_STAMP)
	$(BIN)/daide demo $(DEMO_ARGS)

# `make serve ARGS="--port 16714 --db games.db"`: ARGS go to `daide serve` as they are.
ARGS ?=
# The web page (docs/web.md) is served on HTTP_PORT: `make serve HTTP_PORT=9000`.
HTTP_PORT ?= 8080
serve: $(NATIVE)
	@echo "daide serve: watch and play in a browser at http://127.0.0.1:$(HTTP_PORT)/"
	$(BIN)/daide serve --http-port $(HTTP_PORT) $(ARGS)

test: $(NATIVE)
	$(BIN)/python -m pytest -q

# The benchmark's reference adjudicator, the PyPI package `diplomacy`, lives in
# its own interpreter: it is never a dependency of the product.
BENCH_ENV   := bench-env
BENCH_STAMP := $(BENCH_ENV)/.installed

$(BENCH_STAMP):
	$(PYTHON) -m venv $(BENCH_ENV)
	$(BENCH_ENV)/bin/pip install --quiet diplomacy
	touch $(BENCH_STAMP)

bench: $(NATIVE) $(BENCH_STAMP)
	$(BIN)/python -m benchmarks

# mypy checks the compiled packages strictly (a type error there means no
# build) and server/ as well.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy protocol adjudicator engine orders native server

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

# --- hardening and load (docs/hardening.md, docs/performance.md) -----------------
.PHONY: load load-hosted load-web fuzz fuzz-web crash

# N concurrent games of seven RandBots; the server and the bots in their own processes.
# Then the mixed hosted run: games of several variants and press levels made through
# the host's API (docs/performance.md, "Many hosted games").
LOAD_ARGS ?= --sweep 25,50,100
LOAD_HOSTED_ARGS ?= --games 1000 --stagger 5
load: $(STAMP)
	$(BIN)/python -m load $(LOAD_ARGS)
	$(BIN)/python -m load.hosted $(LOAD_HOSTED_ARGS)

load-hosted: $(STAMP)
	$(BIN)/python -m load.hosted $(LOAD_HOSTED_ARGS)

# DAIDE turn latency with the web door quiet, held full and flooded (docs/hardening.md).
load-web: $(STAMP)
	$(BIN)/python -m load.web $(LOAD_WEB_ARGS)

# Coverage-guided fuzzing with atheris (installed on demand; without it the
# target says so and runs random cases instead).  Crashes land in build/fuzz-crashes/.
# Then the web door (HTTP and WebSocket against daide serve --http-port): random cases.
FUZZ_SECONDS ?= 300
FUZZ_WEB_SECONDS ?= 300
fuzz: $(STAMP)
	$(BIN)/python -c "import atheris" 2>/dev/null || $(BIN)/pip install --quiet atheris \
		|| echo "atheris could not be installed: falling back to random cases"
	mkdir -p build/fuzz-corpus build/fuzz-crashes
	$(BIN)/python -m fuzz.fuzz_server -max_total_time=$(FUZZ_SECONDS) -max_len=512 -len_control=0 \
		-artifact_prefix=build/fuzz-crashes/ build/fuzz-corpus
	$(BIN)/python -m fuzz.fuzz_web --seconds $(FUZZ_WEB_SECONDS)

fuzz-web: $(STAMP)
	$(BIN)/python -m fuzz.fuzz_web --seconds $(FUZZ_WEB_SECONDS)

# The long crash-safety run (make test runs a short one: tests/test_crash.py).
CRASH_ARGS ?= --games 10 --kills 20 --max-year 1912 --hosted-rounds 21
crash: $(STAMP)
	$(BIN)/python -m tests.crash_harness $(CRASH_ARGS)
