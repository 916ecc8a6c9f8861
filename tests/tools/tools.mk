# tools.mk — test tools that are not tests themselves (included by the Makefile).
# mkdump: converts dumps between versions and encodings (tests/tools/mkdump.c).
MKDUMP := $(BUILD)/tests/mkdump
CHECK_DEPS += $(MKDUMP)

$(MKDUMP): tests/tools/mkdump.c $(FORMATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(FORMATS_LIB) $(LDFLAGS) $(LDLIBS) -o $@

# bench_decode: single-thread decode speed and memory per entry (tests/bench/bench_decode.c).
BENCH_DECODE := $(BUILD)/bench/bench_decode
BENCH_DEPS += $(BENCH_DECODE)

$(BENCH_DECODE): tests/bench/bench_decode.c $(ANALYZER_LIB) $(FORMATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(ANALYZER_LIB) $(FORMATS_LIB) $(LDFLAGS) $(LDLIBS) -o $@
