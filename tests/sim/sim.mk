# sim.mk — `make accuracy`: frtrace against thousands of simulated jobs with known answers
# (tests/sim/README). A benchmark, not part of `make check` (t0700 scores a few hundred seeds
# there). ACCURACY_SEEDS=A:B picks the seeds, ACCURACY_JOBS the parallel workers (all cores),
# ACCURACY_CACHE=DIR keeps the simulated jobs there for the next run (about 1 MB a job; see
# accuracy.py --cache): a second run costs frtrace's time alone.
ACCURACY_SEEDS ?= 0:10000
ACCURACY_JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
ACCURACY_CACHE ?=

.PHONY: accuracy
accuracy: all
	python3 tests/sim/accuracy.py --seeds $(ACCURACY_SEEDS) -j $(ACCURACY_JOBS) \
	  --frtrace $(FRTRACE) --seed-file tests/sim/regressions.txt \
	  $(if $(ACCURACY_CACHE),--cache $(ACCURACY_CACHE))
