# bench.mk — build rules for the benchmark programs (included by the Makefile).
#
# build/bench/gen_dumps writes a synthetic job's Flight Recorder dumps through the project's
# pickle writer (formats/pickle_write.c, in $(FORMATS_LIB)); build/bench/measure runs a command
# and reports its wall time, CPU time and peak RSS. Both are built by `make bench` (BENCH_DEPS)
# and, because the story test t0500 generates a small job, by `make check` (CHECK_DEPS).

BENCH_PROGRAMS := $(BUILD)/bench/gen_dumps $(BUILD)/bench/measure
BENCH_DEPS += $(BENCH_PROGRAMS)
CHECK_DEPS += $(BENCH_PROGRAMS)

$(BUILD)/bench/gen_dumps: tests/bench/gen_dumps.c $(FORMATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(FORMATS_LIB) $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/bench/measure: tests/bench/measure.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LDFLAGS) -o $@
