/* dump.c — the decoder entry: a dump file's bytes → a typed dump (fr_dump), for every format
 * version (fr_dump_decode, and fr_decoder for many files in turn).
 *
 * fr_dump_decode() picks the reader by content (a '{' after optional whitespace is JSON,
 * anything else a pickle). Each first goes down a direct path that reads the regular shape
 * straight into fr_entry structs and declines anything else: dump_pickle_fast.c for what PyTorch's
 * C++ pickler writes (about three times faster), dump_json_fast.c for plain JSON (some forty times
 * faster); then the generic path: the reader (pickle_read with salvage on, or json_read) builds a
 * value tree and fr_dump_from_value() (dump_from_value.c) maps it to structs. All paths build
 * through the same helpers (dump_builder.h), so they give the same dump. The value tree lives in
 * a scratch arena that an fr_decoder (dump_decoder.h) resets and reuses from file to file.
 */
#include "dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_decoder.h"
#include "dump_direct.h"
#include "dump_from_value.h"
#include "json_read.h"
#include "pickle_read.h"

/* --- whole files ---------------------------------------------------------------------------- */

static bool looks_like_json(const uint8_t *bytes, size_t len) {
    size_t i = 0;
    if (len >= 3 && bytes[0] == 0xef && bytes[1] == 0xbb && bytes[2] == 0xbf) i = 3; /* UTF-8 BOM */
    while (i < len && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n'))
        i++;
    return i < len && bytes[i] == '{';
}

/* The N of the reader's "truncated pickle at byte N", or the input length. */
static int64_t truncation_offset(const fr_error *err, size_t len) {
    const char *at = strstr(err->msg, "at byte ");
    long long n;
    if (at && sscanf(at + 8, "%lld", &n) == 1 && n >= 0) return n;
    return (int64_t)len;
}

struct fr_decoder {
    fv_arena *values; /* the value tree of the file being decoded; reset after each */
    decoder *dec;
    dump_pickle_fast *fast;    /* the direct pickle path's state, or NULL when it is turned off */
    dump_json_fast *json_fast; /* the direct JSON path's, likewise */
    uint64_t fast_count;       /* files decoded on a direct path */
};

fr_decoder *fr_decoder_new(void) {
    fr_decoder *fd = calloc(1, sizeof *fd);
    if (!fd) return NULL;
    fd->values = fv_arena_new();
    fd->dec = dump_value_decoder_new();
    fd->fast = dump_pickle_fast_new();
    fd->json_fast = dump_json_fast_new();
    if (!fd->values || !fd->dec || !fd->fast || !fd->json_fast) {
        fr_decoder_free(fd);
        return NULL;
    }
    return fd;
}

void fr_decoder_free(fr_decoder *fd) {
    if (!fd) return;
    fv_arena_free(fd->values);
    dump_value_decoder_free(fd->dec);
    dump_pickle_fast_free(fd->fast);
    dump_json_fast_free(fd->json_fast);
    free(fd);
}

/* The dump's own arena starts small: it holds little besides the entry array, which (being
 * large) gets a chunk of exactly its size, and 16 384 ranks' half-empty 64 KiB chunks add up. */
enum { DUMP_FIRST_CHUNK = 4096 };

/* A file that fails to decode and does not even start like a pickle (torch writes PROTO 2;
 * Python's protocols 0 and 1 start a dict with '(' or '}') is most likely not a dump at all: say
 * so before the reader's own message, which alone ("bad memo id in GET at byte 0") would
 * leave the user puzzling over pickle internals. */
static void explain_foreign_bytes(const uint8_t *bytes, size_t len, fr_error *err) {
    if (len == 0) {
        fr_fail(err, "empty file");
        return;
    }
    if (bytes[0] == 0x80 || bytes[0] == '(' || bytes[0] == '}' || bytes[0] == ']') return;
    static const char prefix[] = "not a Flight Recorder dump (neither a pickle nor JSON): ";
    fr_fail_prefix(err, prefix);
}

void fr_decoder_use_fast_path(fr_decoder *fd, bool on) {
    if (!on) {
        dump_pickle_fast_free(fd->fast);
        dump_json_fast_free(fd->json_fast);
        fd->fast = NULL;
        fd->json_fast = NULL;
        return;
    }
    if (!fd->fast)
        fd->fast = dump_pickle_fast_new(); /* stays off when out of memory: only slower */
    if (!fd->json_fast) fd->json_fast = dump_json_fast_new();
}

uint64_t fr_decoder_fast_count(const fr_decoder *fd) { return fd->fast_count; }

/* The direct path (dump_pickle_fast.c for a pickle in PyTorch's regular shape, dump_json_fast.c for
 * plain JSON): 0 with *out set, or 1 when it declined (any doubt, any error), and nothing is
 * left behind. */
static int decode_fast(fr_decoder *fd, const uint8_t *bytes, size_t len, bool json, fr_dump **out) {
    fv_arena *arena = fv_arena_new_sized(DUMP_FIRST_CHUNK);
    if (!arena) return 1;
    fr_error quiet; /* the generic path gives the messages */
    fr_dump *d;
    if (dump_value_begin(fd->dec, arena, json ? FR_ENCODING_JSON : FR_ENCODING_PICKLE, &quiet,
                         &d)) {
        fv_arena_free(arena);
        return 1;
    }
    fv *root = NULL;
    fr_entry *entries = NULL;
    uint32_t n = 0;
    int rc = json ? dump_json_fast_read(fd->json_fast, dump_value_builder(fd->dec), bytes, len,
                                        fd->values, &root, &entries, &n)
                  : dump_pickle_fast_read(fd->fast, dump_value_builder(fd->dec), bytes, len,
                                          fd->values, &root, &entries, &n);
    if (rc == 0) rc = dump_value_decode_root(fd->dec, root, d, -1);
    if (rc == 0 && n) { /* built in the dump's arena already */
        d->entries = entries;
        d->nentries = n;
    }
    dump_value_end(fd->dec);
    fv_arena_reset(fd->values);
    if (rc != 0) {
        fv_arena_free(arena);
        return 1;
    }
    *out = d;
    return 0;
}

/* The bound `frtrace show` puts on what it prints: a pickle whose memo sharing makes its values
 * weigh more than 64 times its own bytes (plus 16 MiB) is hostile, not a dump; decoding it would
 * multiply memory (every shared entry and list copied into the dump) beyond the input's size. */
static bool sane_expansion(fv *root, size_t len, fr_error *err) {
    uint64_t bound = 64 * (uint64_t)len + ((uint64_t)16 << 20);
    uint64_t weight = fv_tree_weight(root, bound);
    if (weight <= bound) return true;
    fr_fail(err,
            "memo sharing expands this %zu-byte pickle beyond %" PRIu64
            " bytes of values (64 times its size "
            "+ 16 MiB) or into a cycle: refused as hostile, as frtrace show refuses it",
            len, bound);
    return false;
}

int fr_decoder_decode(fr_decoder *fd, const uint8_t *bytes, size_t len, fr_dump **out,
                      fr_error *err) {
    *out = NULL;
    bool json = looks_like_json(bytes, len);
    bool direct = json ? fd->json_fast != NULL : fd->fast != NULL;
    if (direct && decode_fast(fd, bytes, len, json, out) == 0) {
        fd->fast_count++;
        return 0;
    }
    fv_arena *values = fd->values;
    fv_arena *arena = fv_arena_new_sized(DUMP_FIRST_CHUNK);
    if (!arena) return fr_fail(err, "out of memory");
    fv *root = NULL;
    fr_encoding encoding;
    int64_t truncated_at = -1;
    int rc;
    if (json) {
        encoding = FR_ENCODING_JSON;
        rc = json_read_salvage((const char *)bytes, len, values, &root, err);
        if (rc == 1) {
            truncated_at = (int64_t)len;
            rc = 0;
        }
    } else {
        encoding = FR_ENCODING_PICKLE;
        pr_options opts = { .max_memory = 0,
                            .max_mark_depth = 0,
                            .salvage = true }; /* reader's bounds */
        rc = pickle_read(bytes, len, values, &opts, &root, err);
        if (rc < 0) explain_foreign_bytes(bytes, len, err);
        if (rc >= 0 && !sane_expansion(root, len, err)) rc = -1;
        if (rc == 1) {
            truncated_at = truncation_offset(err, len);
            rc = 0;
        }
    }
    if (rc == 0) rc = dump_value_decode(fd->dec, root, arena, encoding, truncated_at, out, err);
    fv_arena_reset(values);
    if (rc != 0) {
        fv_arena_free(arena);
        return -1;
    }
    return 0;
}

int fr_dump_decode(const uint8_t *bytes, size_t len, fr_dump **out, fr_error *err) {
    *out = NULL;
    fr_decoder *fd = fr_decoder_new();
    if (!fd) return fr_fail(err, "out of memory");
    int rc = fr_decoder_decode(fd, bytes, len, out, err);
    fr_decoder_free(fd);
    return rc;
}

void fr_dump_free(fr_dump *dump) {
    if (dump) fv_arena_free(dump->arena);
}
