/* fuzz_json.c — libFuzzer harness: any bytes through json_read and, when a tree comes out,
 * through fv_write_json (compact and pretty). Must never crash, leak, hang or overread. */
#include <stdint.h>
#include <stdio.h>

#include "json_read.h"
#include "json_write.h"
#include "value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *sink; /* one for the process, see fuzz_pickle.c */
    if (!sink) sink = fopen("/dev/null", "w");
    fv_arena *arena = fv_arena_new();
    fv *root;
    fr_error err;
    if (json_read((const char *)data, size, arena, &root, &err) == 0 && sink) {
        fv_write_json(sink, root, false, 64 * (uint64_t)size + (1u << 20), &err);
        fv_write_json(sink, root, true, 64 * (uint64_t)size + (1u << 20), &err);
    }
    fv_arena_free(arena);
    return 0;
}
