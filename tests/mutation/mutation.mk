# mutation.mk — `make mutation` (included by the Makefile): mutation testing with
# tests/mutation/run.sh and the mutants of tests/mutation/mutants.txt, in a scratch copy of the
# tree under build/mutation (kept between runs: a run rebuilds only what changed; the killer
# of each mutant is remembered and tried first, for a story its failing test alone, "t0200:17"
# run with FRTRACE_TEST_RUN=17 where that test passes alone on the unmutated tree, see run.sh's
# header; tests/mutation/killers.txt, committed, gives a fresh checkout the killers a full run
# found). Long (a build and the
# stories per surviving mutant), so not part of `make check`. `make mutation MUTANT_IDS="v01
# m03"` runs only those.
.PHONY: mutation
mutation: $(BUILD)/.deps-ok
	@sh tests/mutation/run.sh $(MUTANT_IDS)
