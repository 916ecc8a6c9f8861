# tools.mk — test tools that are not tests themselves (included by the Makefile).
# mkdump: converts dumps between versions and encodings (tests/tools/mkdump.c).
MKDUMP := $(BUILD)/tests/mkdump
CHECK_DEPS += $(MKDUMP)

$(MKDUMP): tests/tools/mkdump.c $(FORMATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(FORMATS_LIB) $(LDFLAGS) $(LDLIBS) -o $@
