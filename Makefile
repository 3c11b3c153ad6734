# Every target creates .venv/ itself on first use; `make test` is what CI runs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One stamp per lock file: `make run` and `make practice` need only the bot's own
# dependencies (requirements.lock); the test and lint tools come with requirements-dev.lock.
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev

# Installs come from the lock files, hash-checked: a fresh machine gets exactly the versions
# the tests passed with. requirements.lock is the bot's own (the Dockerfile's),
# requirements-dev.lock adds the test and lint tools.
LOCK_FLAGS := --quiet --generate-hashes --universal --python-version 3.11 --no-annotate \
	--custom-compile-command "make lock"
TOOLS := $(VENV)-tools
UV := $(TOOLS)/bin/uv

.PHONY: install run test lint bench practice mutation mutation-continue mutation-layers \
	mutation-layers-continue mutation-core-sample clean lock

install: $(DEV)

# The bot alone: what `make run` and `make practice` need.
$(RUNTIME): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

# Everything: requirements-dev.lock pins the same versions as requirements.lock (a test
# checks) and adds the tools, so it stands for both stamps.
$(DEV): pyproject.toml requirements-dev.lock requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@ $(RUNTIME)

# After changing dependencies in pyproject.toml: re-resolve both lock files (versions already
# pinned are kept where they still fit), then `make test` installs and tests exactly those.
lock: $(UV)
	$(UV) pip compile pyproject.toml --extra dev $(LOCK_FLAGS) -o requirements-dev.lock
	$(UV) pip compile pyproject.toml $(LOCK_FLAGS) -c requirements-dev.lock -o requirements.lock

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet uv

run: $(RUNTIME)
	$(BIN)/interview-bot run

practice: $(RUNTIME)
	$(BIN)/interview-bot practice $(ARGS)

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy bot

test: lint
	$(BIN)/interview-bot content check
	$(BIN)/pytest -q -n auto

# Slow (hours on two cores for all of bot/core), so not part of `make test`; see TESTING.md.
# A fresh run each time: mutmut keeps earlier verdicts, which new tests would not revisit.
# MUTANTS='bot.core.text*' runs only those (the others are reported as not checked).
mutation: $(DEV)
	rm -rf mutants
	$(BIN)/mutmut run --max-children $${MUTATION_JOBS:-2} $(MUTANTS) || true
	$(BIN)/python -m tests.support.mutation_report

# The last run, continued (mutants/ kept): mutmut checks the mutants without a verdict and
# those of every function changed since (it hashes each function); the others keep theirs.
# A full run takes hours on two cores, so it can be stopped and continued here.
mutation-continue: $(DEV)
	$(BIN)/mutmut run --max-children $${MUTATION_JOBS:-2} $(MUTANTS) || true
	$(BIN)/python -m tests.support.mutation_report

# The layers above bot/core (handlers, services, jobs, storage, delivery, ratelimit, webhook,
# app): all their mutants would take days, so a seeded random sample of MUTATION_SAMPLE (400)
# is checked, drawn with MUTATION_SEED (1), in mutants-layers/ (make mutation's mutants/ is
# left alone); then the kill rate per layer. See TESTING.md and tests/support/mutation_layers.py.
mutation-layers: $(DEV)
	$(BIN)/python -m tests.support.mutation_layers run --sample $${MUTATION_SAMPLE:-400} \
		--seed $${MUTATION_SEED:-1} --jobs $${MUTATION_JOBS:-2}

# The last sample's mutants that have no verdict yet (a run stopped part way), then the report.
mutation-layers-continue: $(DEV)
	$(BIN)/python -m tests.support.mutation_layers continue --jobs $${MUTATION_JOBS:-2}

# bot/core between full runs: a seeded sample of MUTATION_SAMPLE (400) of its mutants, drawn
# with MUTATION_SEED (1), checked in mutants/ by name; then its kill rate. See TESTING.md.
mutation-core-sample: $(DEV)
	$(BIN)/python -m tests.support.mutation_core run --sample $${MUTATION_SAMPLE:-400} \
		--seed $${MUTATION_SEED:-1} --jobs $${MUTATION_JOBS:-1}

bench: $(DEV)
	$(BIN)/python -m bench $(ARGS)

clean:
	rm -rf $(VENV) $(TOOLS) .mypy_cache .pytest_cache .ruff_cache mutants mutants-layers
