# The two commands of the quick start: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo test setup

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	bin/setup "$(PYTHON)" "$(VENV)"
	touch $@

demo: setup
	bin/demo "$(PY)"

test: setup
	bin/test "$(PY)"
