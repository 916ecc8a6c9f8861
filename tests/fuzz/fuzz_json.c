/* fuzz_json.c — libFuzzer harness: any bytes through json_read and, when a tree comes out,
 * through fv_write_json (compact and pretty). Must never crash, leak, hang or overread.
 *
 * The same bytes are also decoded as a dump twice, with the direct JSON path (dump_json_fast.c)
 * and without it: both must give the same dump or the same error (CHECK aborts, so that
 * libFuzzer records the input). fuzz_dump checks this too, over pickles and JSON alike; here
 * the corpus is JSON only, so the mutations stay near JSON and reach deeper into that path.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_decoder.h"
#include "json_read.h"
#include "json_write.h"
#include "value.h"
#include "../unit/dump_equal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_json: invariant failed at %s:%d: %s\n", __FILE__, __LINE__,      \
                    #cond);                                                                        \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The dump both ways: the same outcome. Decoders kept for the run, as the analyzer keeps them. */
static void both_paths_agree(const uint8_t *data, size_t size) {
    static fr_decoder *direct, *generic;
    if (!direct) direct = fr_decoder_new();
    if (!generic && (generic = fr_decoder_new())) fr_decoder_use_fast_path(generic, false);
    if (!direct || !generic) return;
    fr_dump *a = NULL, *b = NULL;
    fr_error ea, eb;
    memset(&ea, 0, sizeof ea);
    memset(&eb, 0, sizeof eb);
    int ra = fr_decoder_decode(direct, data, size, &a, &ea);
    int rb = fr_decoder_decode(generic, data, size, &b, &eb);
    CHECK(ra == rb);
    if (ra == 0)
        CHECK(dump_eq(a, b));
    else
        CHECK(strcmp(ea.msg, eb.msg) == 0);
    fr_dump_free(a);
    fr_dump_free(b);
}

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
    both_paths_agree(data, size);
    return 0;
}
