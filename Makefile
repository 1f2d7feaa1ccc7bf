# The README's first two commands: `make demo` and `make test`.
# Everything installs into .venv with nothing but python3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo serve test bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/daide demo

serve: $(STAMP)
	$(BIN)/daide serve

test: $(STAMP)
	$(BIN)/python -m pytest -q

# The benchmark's reference adjudicator, the PyPI package `diplomacy`, lives in
# its own interpreter: it is never a dependency of the product.
BENCH_ENV   := bench-env
BENCH_STAMP := $(BENCH_ENV)/.installed

$(BENCH_STAMP):
	$(PYTHON) -m venv $(BENCH_ENV)
	$(BENCH_ENV)/bin/pip install --quiet diplomacy
	touch $(BENCH_STAMP)

bench: $(STAMP) $(BENCH_STAMP)
	$(BIN)/python -m benchmarks

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy protocol adjudicator

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
