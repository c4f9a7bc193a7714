# Every target bootstraps what it needs: on a fresh machine `make demo` or `make test` is the
# only command. One environment (.venv, Python 3.12) holds everything, Synthea's port included.
#
# The interpreter: $(PYTHON) if given, else the first candidate that really runs Python 3.12:
# python3.12 on PATH (a pyenv shim there may point at no installed version), then pyenv's own.
FIND_PY312 := for p in "$$(command -v python3.12)" $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.12*/bin/python3.12 2>/dev/null | sort -rV); do \
  [ -n "$$p" ] && "$$p" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null && { echo "$$p"; break; }; done
PYTHON ?= $(shell $(FIND_PY312))
VENV := .venv
INSTALLED := $(VENV)/.installed
PIP_FLAGS := --quiet --disable-pip-version-check

.PHONY: demo test test-fast bench env python clean

env: $(INSTALLED)

python:
	@if [ -z "$(PYTHON)" ] || ! "$(PYTHON)" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then \
	  echo "ClinVerse needs Python 3.12 and found none (looked for python3.12 on PATH and under pyenv)." >&2; \
	  echo "Install it (e.g. 'pyenv install 3.12', 'apt-get install python3.12 python3.12-venv' or 'brew install python@3.12')," >&2; \
	  echo "or point make at one: make test PYTHON=/path/to/python3.12" >&2; \
	  exit 1; \
	fi

# clinverse, and the verifiers environment package over it (vf-eval clinverse-env).
$(INSTALLED): pyproject.toml constraints.txt environments/clinverse_env/pyproject.toml | python
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install $(PIP_FLAGS) -c constraints.txt -e '.[test]' -e environments/clinverse_env
	touch $@

# Build every asset (the stress test included), run the three offline doctors on the test cases,
# then the evaluation study (stream, held-out, MDT) and its report (warehouse/reports/evaluation.html).
demo: $(INSTALLED)
	$(VENV)/bin/clinverse build
	for doctor in full_info retrieval random; do $(VENV)/bin/clinverse episodes --doctor $$doctor || exit 1; done
	$(VENV)/bin/clinverse evaluate

# The whole suite over every core, with its wall time (CI runs this; it stays under 10 minutes on 2 cores).
test: $(INSTALLED)
	@start=$$(date +%s); $(VENV)/bin/pytest -q -n auto --dist loadfile; rc=$$?; \
	  echo "make test: $$(( $$(date +%s) - start )) s"; exit $$rc

# For development: everything except the tests marked `slow` (whole demo warehouse builds).
test-fast: $(INSTALLED)
	$(VENV)/bin/pytest -q -m "not slow"

bench: $(INSTALLED)
	$(VENV)/bin/python -m benchmarks.run

clean:
	rm -rf warehouse benchmarks/results .pytest_cache
