/* fuzz_pickle.c — libFuzzer harness: any bytes through pickle_read (with and without salvage)
 * and, when a tree comes out, through fv_write_json. Must never crash, leak, hang or overread. */
#include <stdint.h>
#include <stdio.h>

#include "json_write.h"
#include "pickle_read.h"
#include "value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* one sink for the process: opening /dev/null per input would dominate the run time */
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    for (int salvage = 0; salvage < 2; salvage++) {
        fv_arena *arena = fv_arena_new();
        fv *root;
        fr_error err;
        pr_options opts = { .salvage = salvage, .max_memory = 64u << 20 };
        if (pickle_read(data, size, arena, &opts, &root, &err) >= 0 && sink)
            fv_write_json(sink, root, salvage, 64 * (uint64_t)size + (1u << 20), &err);
        fv_arena_free(arena);
    }
    return 0;
}
