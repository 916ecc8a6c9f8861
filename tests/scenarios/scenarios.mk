# scenarios.mk — the scenario tests need the dump writer tool (build/tests/mkdump, helper-2's).
CHECK_DEPS += $(BUILD)/frtrace
