# fuzz.mk — libFuzzer harnesses for the readers and the dump decoder (included by the Makefile).
#
# With clang present, `make check` builds $(BUILD)/fuzz/fuzz_pickle, fuzz_json, fuzz_dump and
# fuzz_dir (the story script tests/t0102-fuzz.sh runs each for a few seconds); `make fuzz` runs
# each for FUZZ_SECONDS (default 60). fuzz_dump and fuzz_json link the decoder's sources too
# (FUZZ_DUMP_SRC): both check that the direct paths decode as the generic one. fuzz_dir, a
# directory of a few files mutated together through the whole analysis and its reports, links
# every formats/ and analyzer/ source but main.c (FUZZ_DIR_SRC). The seed
# corpus is made at run time by tests/fuzz/run.sh from tests/fuzz/corpus/ and, when present, the
# dumps in ../shared (never copied into the repo).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_LIB_SRC := formats/value.c formats/pickle_read.c formats/pickle_memo.c formats/pickle_text.c \
                formats/json_read.c formats/json_salvage.c \
                formats/json_write.c \
                formats/error.c formats/json_text.c
FUZZ_DUMP_SRC := formats/dump.c formats/dump_from_value.c formats/dump_builder.c formats/dump_pickle_fast.c \
                 formats/dump_json_fast.c formats/json_literal.c formats/pg_ranks.c \
                 formats/dump_names.c formats/intern.c formats/dump_whereabouts.c \
                 $(wildcard formats/pickle_fast_*.c formats/json_fast_*.c)
FUZZ_DIR_SRC := $(FUZZ_DUMP_SRC) formats/dump_write.c formats/dump_write_whereabouts.c \
                formats/pickle_write.c formats/safe_text.c formats/atomic_file.c $(ANALYZER_SRC)
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_pickle $(FUZZ_DIR)/fuzz_json $(FUZZ_DIR)/fuzz_dump $(FUZZ_DIR)/fuzz_dir
FUZZ_FLAGS   := -std=c11 -D_GNU_SOURCE -g -O1 -Iformats \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

ifneq ($(shell command -v $(FUZZ_CC) 2>/dev/null),)
CHECK_DEPS += $(FUZZ_BIN)
endif

$(FUZZ_DIR)/fuzz_dump $(FUZZ_DIR)/fuzz_json: FUZZ_EXTRA_SRC := $(FUZZ_DUMP_SRC)
$(FUZZ_DIR)/fuzz_dump $(FUZZ_DIR)/fuzz_json: $(FUZZ_DUMP_SRC)
$(FUZZ_DIR)/fuzz_dir: FUZZ_EXTRA_SRC := $(FUZZ_DIR_SRC)
$(FUZZ_DIR)/fuzz_dir: FUZZ_EXTRA_FLAGS := $(ANALYZER_INC) -lpthread
$(FUZZ_DIR)/fuzz_dir: $(FUZZ_DIR_SRC) $(wildcard analyzer/*.h analyzer/*/*.h)

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_SRC) $(wildcard formats/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_EXTRA_FLAGS) $< $(FUZZ_LIB_SRC) $(FUZZ_EXTRA_SRC) -lcjson -lm -o $@

fuzz: $(FUZZ_BIN)
	@BUILD=$(BUILD) sh tests/fuzz/run.sh $(FUZZ_SECONDS)
