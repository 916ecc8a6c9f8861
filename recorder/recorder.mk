# recorder.mk — the recorder shim, its fakes, drivers and benchmarks (included by the Makefile).
#
#   recorder/*.c + formats/{pickle_write,dump_write,dump_write_whereabouts,dump_names,error,
#   json_text,atomic_file}.c
#                             -> $(BUILD)/libfrtrace-recorder.so
#   (dump_names.c, not dump.c, for fr_state_name: dump.c's readers would pull in cJSON)
#   tests/fakes/fake_nccl.c   -> $(BUILD)/fakes/libnccl.so.2  (SONAME libnccl.so.2)
#   tests/fakes/fake_cuda.c   -> $(BUILD)/fakes/libcuda.so.1  (SONAME libcuda.so.1)
#   tests/fakes/driver.c      -> $(BUILD)/fakes/frtrace-driver (forks N ranks on the fakes)
#   tests/fakes/smoke_real.c  -> $(BUILD)/fakes/smoke-real (links nothing; dlopens real NCCL)
#   tests/fakes/asig_trap.c   -> $(BUILD)/fakes/libasig-trap.so (malloc/stdio trap for the
#                                fatal-signal dump's async-signal-safety test)
#   tests/unit_rec/test_*.c   -> $(BUILD)/tests/test_rec_* (cmocka; recorder internals)
#   tests/bench/bench_recorder.c -> $(BUILD)/bench/bench-recorder
# Everything builds only when $(CUDA_HOME)/include/nccl.h exists (the recorder needs its types).

ifneq ($(wildcard $(CUDA_HOME)/include/nccl.h),)

REC_PIC      := $(BUILD)/pic
REC_SRC      := $(sort $(wildcard recorder/*.c))
REC_FMT_SRC  := formats/pickle_write.c formats/dump_write.c formats/dump_write_whereabouts.c \
                formats/dump_names.c formats/error.c formats/json_text.c formats/atomic_file.c
REC_OBJ      := $(REC_SRC:%.c=$(REC_PIC)/%.o) $(REC_FMT_SRC:%.c=$(REC_PIC)/%.o)
REC_SO       := $(BUILD)/libfrtrace-recorder.so
REC_CFLAGS    = $(CFLAGS) -fPIC -fvisibility=hidden -isystem $(CUDA_HOME)/include
# Without sanitizers every symbol must resolve inside libc/libdl/libpthread.
REC_DEFS     := $(if $(SANFLAGS),,-Wl,-z,defs)

FAKES        := $(BUILD)/fakes
FAKE_NCCL    := $(FAKES)/libnccl.so.2
FAKE_CUDA    := $(FAKES)/libcuda.so.1
DRIVER       := $(FAKES)/frtrace-driver
SMOKE_REAL   := $(FAKES)/smoke-real
ASIG_TRAP    := $(FAKES)/libasig-trap.so
FAKE_CFLAGS   = $(CFLAGS) -fPIC -isystem $(CUDA_HOME)/include
REC_UNIT_SRC := $(sort $(wildcard tests/unit_rec/test_*.c))
REC_UNIT_BIN := $(REC_UNIT_SRC:tests/unit_rec/%.c=$(BUILD)/tests/%)
BENCH_REC    := $(BUILD)/bench/bench-recorder

ALL_TARGETS  += $(REC_SO)
CHECK_DEPS   += $(REC_SO) $(FAKE_NCCL) $(FAKE_CUDA) $(DRIVER) $(SMOKE_REAL) $(ASIG_TRAP) $(REC_UNIT_BIN)
BENCH_DEPS   += $(REC_SO) $(FAKE_NCCL) $(FAKE_CUDA) $(BENCH_REC)

$(REC_PIC)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(REC_CFLAGS) -c $< -o $@

$(REC_SO): $(REC_OBJ)
	$(CC) -shared $(LDFLAGS) $(REC_DEFS) -Wl,-soname,libfrtrace-recorder.so $^ -ldl -lpthread -o $@

$(FAKE_CUDA): tests/fakes/fake_cuda.c
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) -shared -Wl,-soname,libcuda.so.1 $< $(LDFLAGS) -lpthread -o $@

$(FAKE_NCCL): tests/fakes/fake_nccl.c $(FAKE_CUDA)
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) -shared -Wl,-soname,libnccl.so.2 $< $(LDFLAGS) -ldl -lpthread -lrt -o $@

$(DRIVER): tests/fakes/driver.c $(FAKE_NCCL) $(FAKE_CUDA)
	$(CC) $(FAKE_CFLAGS) $< $(LDFLAGS) $(FAKE_NCCL) $(FAKE_CUDA) -Wl,-rpath,'$$ORIGIN' -ldl -lpthread -o $@

$(SMOKE_REAL): tests/fakes/smoke_real.c
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) $< $(LDFLAGS) -ldl -o $@

$(ASIG_TRAP): tests/fakes/asig_trap.c
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) -shared $< $(LDFLAGS) -ldl -o $@

# Unit tests of the recorder's internals link its objects directly (no preload involved).
$(BUILD)/tests/test_rec_%: tests/unit_rec/test_rec_%.c $(REC_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(REC_CFLAGS) -Irecorder $< $(REC_OBJ) $(LDFLAGS) -lcmocka -ldl -lpthread -o $@

$(BENCH_REC): tests/bench/bench_recorder.c $(FAKE_NCCL) $(FAKE_CUDA)
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) $< $(LDFLAGS) $(FAKE_NCCL) $(FAKE_CUDA) -Wl,-rpath,'$(abspath $(FAKES))' -ldl -lpthread -o $@

-include $(shell find $(REC_PIC) $(FAKES) -name '*.d' 2>/dev/null)

endif
