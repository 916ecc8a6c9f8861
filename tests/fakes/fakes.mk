# fakes.mk — `make recorder-jobs`: the recorder itself (LD_PRELOAD) over the fake NCCL and CUDA,
# in random jobs of the fake driver with known answers (tests/fakes/random_rec_jobs.py), one at a
# time, scored exact / ambiguous / wrong like `make accuracy`. Not part of `make check` (t0703
# scores 20 seeds there). RECORDER_JOBS=A:B picks the seeds; a few seconds a job.
RECORDER_JOBS ?= 0:300

.PHONY: recorder-jobs
recorder-jobs: all
	@$(MAKE) --no-print-directory build-tests
	python3 tests/fakes/random_rec_jobs.py --seeds $(RECORDER_JOBS) --frtrace $(FRTRACE) \
	  --json $(BUILD)/recorder-jobs.json
