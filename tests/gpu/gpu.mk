# gpu.mk — the GPU check of issue 24 (tests/gpu/run.sh) and its probe (included by the Makefile).
#
#   $(BUILD)/gpu/nccl-probe-fake   tests/gpu/nccl_probe.c + probe_fake.c on the fake NCCL and CUDA
#                                  of tests/fakes (make check: the story t0450 runs the script
#                                  with FAKE=1)
#   make gpu-check                 tests/gpu/run.sh with its results in GPU_OUT (default
#                                  build/gpu-out); on a machine without a GPU: make gpu-check FAKE=1
#   make gpu-carry                 .gpu-carry/: what a GPU machine without libcjson-dev needs to
#                                  build frtrace (this machine's cJSON header and library), and
#                                  this machine's nccl.h, a fallback when the GPU machine's NCCL
#                                  has none the recorder builds against (see README, "On a GPU")
# The real probe (nvcc, the GPU machine's nccl.h and libnccl.so.2) is built by run.sh itself.

GPU_OUT ?= $(BUILD)/gpu-out
FAKE    ?= 0

.PHONY: gpu-check gpu-carry
gpu-check:
	@mkdir -p $(GPU_OUT)
	FAKE=$(FAKE) BUILD=$(BUILD) OUT=$(abspath $(GPU_OUT)) sh tests/gpu/run.sh

gpu-carry:
	@mkdir -p .gpu-carry/include/cjson .gpu-carry/lib
	cp /usr/include/cjson/cJSON.h .gpu-carry/include/cjson/
	cp -L /usr/lib/x86_64-linux-gnu/libcjson.so.1 .gpu-carry/lib/libcjson.so.1
	ln -sf libcjson.so.1 .gpu-carry/lib/libcjson.so
	if [ -f $(CUDA_HOME)/include/nccl.h ]; then mkdir -p .gpu-carry/nccl/include && \
	  cp $(CUDA_HOME)/include/nccl.h .gpu-carry/nccl/include/; fi
	@du -sh .gpu-carry

ifdef FAKE_NCCL
GPU_PROBE_FAKE := $(BUILD)/gpu/nccl-probe-fake
CHECK_DEPS     += $(GPU_PROBE_FAKE)

$(GPU_PROBE_FAKE): tests/gpu/nccl_probe.c tests/gpu/probe_fake.c tests/gpu/probe_device.h \
                   $(FAKE_NCCL) $(FAKE_CUDA)
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) -Itests/gpu tests/gpu/nccl_probe.c tests/gpu/probe_fake.c $(LDFLAGS) \
	    $(FAKE_NCCL) $(FAKE_CUDA) -Wl,-rpath,'$$ORIGIN/../fakes' -ldl -lpthread -o $@
endif
