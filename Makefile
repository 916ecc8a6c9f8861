# frtrace — build, test and demo.
#
# `make demo` installs missing Debian packages, builds, and analyzes the bundled example;
# `make check` builds and runs every test and ends with one line "N passed, N failed".
# `make check SANITIZE=1` does the same under AddressSanitizer + UBSan in build-san/.
#
# Sources are found by directory, so adding a file needs no edit here:
#   formats/*.c            -> $(BUILD)/libfrformats.a   (no knowledge of analyzer or recorder)
#   analyzer/*.c and analyzer/STAGE/*.c but cli/main.c -> $(BUILD)/libfranalyzer.a
#   analyzer/cli/main.c    -> $(BUILD)/frtrace
#   tests/unit/test_*.c    -> $(BUILD)/tests/test_*    (cmocka, linked with both libraries)
# Parts with rules of their own (the recorder, fakes, fuzzers, benchmarks) bring them in
# a `*.mk` file beside their sources; those files add to TEST_PROGRAMS and CHECK_DEPS.

CUDA_HOME ?= /usr/local/cuda
PREFIX    ?= /usr/local
SANITIZE  ?=

ifeq ($(SANITIZE),1)
BUILD     ?= build-san
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD     ?= build
SANFLAGS  :=
endif

CC       ?= cc
OPT      ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# The analyzer's stages each have a folder (analyzer/load, match, verdict, perf, report, cli,
# util); their headers are included by name, so every folder is on the include path.
ANALYZER_INC := -Ianalyzer
CFLAGS   := -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) $(SANFLAGS) -Iformats $(ANALYZER_INC) -MMD -MP
LDFLAGS  := $(SANFLAGS)
LDLIBS   := -lcjson -lpthread -lm

FORMATS_SRC  := $(sort $(wildcard formats/*.c))
ANALYZER_SRC := $(sort $(filter-out analyzer/cli/main.c,$(wildcard analyzer/*.c analyzer/*/*.c)))
UNIT_SRC     := $(sort $(wildcard tests/unit/test_*.c))

FORMATS_OBJ  := $(FORMATS_SRC:%.c=$(BUILD)/obj/%.o)
ANALYZER_OBJ := $(ANALYZER_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

FORMATS_LIB  := $(BUILD)/libfrformats.a
ANALYZER_LIB := $(BUILD)/libfranalyzer.a
FRTRACE      := $(BUILD)/frtrace

# Filled in by the *.mk files below.
ALL_TARGETS   := $(FRTRACE)
TEST_PROGRAMS := $(UNIT_BIN)
CHECK_DEPS    :=
BENCH_DEPS    :=

.PHONY: all deps demo demo-recorder check bench fuzz install clean
.SECONDEXPANSION:
all: $(BUILD)/.deps-ok

# --- Debian packages -----------------------------------------------------------------
# Installed by name with apt when missing (sudo only when not root). A stamp file keeps
# `make` from asking dpkg on every build.
DEBIAN_PACKAGES := gcc make libc6-dev libcjson-dev libcmocka-dev python3 python3-jsonschema clang libclang-rt-dev \
                   clang-format librsvg2-bin

deps: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok:
	@mkdir -p $(BUILD)
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "== installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || exit 1; \
	else echo "== Debian packages present: $(DEBIAN_PACKAGES)"; fi
	@touch $@

# Everything is built after the dependency check, never before it.
all:
	@$(MAKE) --no-print-directory build-all

.PHONY: build-all
build-all: $$(ALL_TARGETS)

# --- libraries and the CLI -----------------------------------------------------------
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(FORMATS_LIB): $(FORMATS_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(ANALYZER_LIB): $(ANALYZER_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FRTRACE): $(BUILD)/obj/analyzer/cli/main.o $(ANALYZER_LIB) $(FORMATS_LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(ANALYZER_LIB) $(FORMATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $< $(ANALYZER_LIB) $(FORMATS_LIB) $(LDFLAGS) -lcmocka $(LDLIBS) -o $@

-include $(sort $(wildcard recorder/*.mk tests/*.mk tests/*/*.mk))
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
# the unit tests' own (-MMD beside each binary): a header they include rebuilds them
-include $(wildcard $(BUILD)/tests/*.d)

# --- the two README commands ---------------------------------------------------------
demo: all
	@echo "== frtrace on the bundled example (testdata/demo-hang): one rank never joined"
	@echo "\$$ $(FRTRACE) testdata/demo-hang"
	@$(FRTRACE) testdata/demo-hang; status=$$?; \
	  echo "== exit status $$status (0 ok, 1 hang/mismatch/inconclusive, 2 unreadable input)"; \
	  [ $$status -le 1 ]

# Watch the recorder catch a hang without a GPU (the fake NCCL of tests/fakes).
demo-recorder: all
	@$(MAKE) --no-print-directory build-tests
	@BUILD=$(BUILD) sh tests/fakes/demo.sh

check: all
	@$(MAKE) --no-print-directory build-tests
	@echo "== running the test suite ($(BUILD))"
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) CUDA_HOME=$(CUDA_HOME) sh tests/run.sh

.PHONY: build-tests
build-tests: $$(TEST_PROGRAMS) $$(CHECK_DEPS)

bench: all
	@$(MAKE) --no-print-directory build-bench
	@BUILD=$(BUILD) sh tests/bench/run.sh

.PHONY: build-bench
build-bench: $$(BENCH_DEPS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(FRTRACE) $(DESTDIR)$(PREFIX)/bin/frtrace
	if [ -f $(BUILD)/libfrtrace-recorder.so ]; then install -m 755 $(BUILD)/libfrtrace-recorder.so $(DESTDIR)$(PREFIX)/lib/; fi
	install -m 644 man/frtrace.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/frtrace
	install -m 644 man/frtrace-db.schema.json $(DESTDIR)$(PREFIX)/share/frtrace/
	if [ -f man/libfrtrace-recorder.7 ]; then install -m 644 man/libfrtrace-recorder.7 $(DESTDIR)$(PREFIX)/share/man/man7/; fi
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 644 completion/frtrace.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/frtrace
	install -m 644 completion/_frtrace $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_frtrace

clean:
	rm -rf build build-san build-tsan build-fuzz
