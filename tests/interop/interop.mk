# `make interop`: real PyTorch against frtrace, both ways (tests/interop/run_interop.py).
# Opt-in, never part of `make check` or CI: it installs torch from PyPI (about 5 GB) into a
# virtual environment under build/ the first time. `make interop SAVE=1` also refreshes the
# committed dumps under testdata/torch-$(TORCH_VERSION)-gloo that `make check` tests.
# Then random real jobs with known answers (tests/interop/random_jobs.py), one at a time, scored
# exact / ambiguous / wrong like `make accuracy`: INTEROP_RANDOM=A:B picks the seeds, 0:0 none.
# `make interop RESCORE=1` judges the dumps the last run left under $(BUILD)/interop again with
# the freshly built frtrace, rerunning no fixed torch job (an analyzer change, checked against
# real bytes in seconds); random seeds are rescored where their dumps were kept, run otherwise.
TORCH_VERSION ?= 2.15.0
INTEROP_VENV  ?= $(BUILD)/venv-torch
INTEROP_PY    := $(INTEROP_VENV)/bin/python
INTEROP_RANDOM ?= 0:20

.PHONY: interop
interop: all
	@dpkg-query -W -f='$${Status}' python3-venv 2>/dev/null | grep -q "install ok installed" || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  $$SUDO apt-get install -y -qq python3-venv >/dev/null; }
	@test -x $(INTEROP_PY) || python3 -m venv $(INTEROP_VENV)
	@$(INTEROP_PY) -c "import torch" 2>/dev/null || { \
	  echo "== installing torch==$(TORCH_VERSION) into $(INTEROP_VENV) (about 5 GB, once)"; \
	  $(INTEROP_PY) -m pip install -q torch==$(TORCH_VERSION); }
	@$(MAKE) --no-print-directory build-tests
	python3 tests/interop/run_interop.py --python $(INTEROP_PY) --frtrace $(FRTRACE) \
	  --workdir $(BUILD)/interop $(if $(SAVE),--save testdata/torch-$(TORCH_VERSION)-gloo) \
	  $(if $(RESCORE),--rescore)
	python3 tests/interop/random_jobs.py --seeds $(INTEROP_RANDOM) --python $(INTEROP_PY) \
	  --frtrace $(FRTRACE) --workdir $(BUILD)/interop/random $(if $(RESCORE),--keep --rescore)
