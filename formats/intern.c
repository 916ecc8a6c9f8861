/* intern.c — the string interner of intern.h.
 *
 * An open-addressing table (linear probing, power-of-two size, at most half full) of slots
 * that keep the string's hash and length beside the pointer, so that a probe compares bytes
 * only when hash and length already agree. The hash is 64-bit FNV-1a, which is quick on the
 * short strings dumps are made of.
 *
 * Copies are C strings, so a NUL inside a string is stored as C0 80 (Modified UTF-8, see
 * safe_text.h): nothing reading a dump's strings cuts them short, and every writer shows the NUL.
 */
#include "intern.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    const char *str; /* NULL = empty */
    uint32_t len;
    uint32_t hash; /* low bits of the 64-bit hash: enough to skip most memcmps */
} slot;

struct fr_interner {
    fv_arena *arena;
    slot *slots;
    size_t size; /* power of two */
    size_t used;
};

enum { INITIAL_SLOTS = 256 };

static uint64_t hash_bytes(const char *s, size_t len) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x100000001b3ull;
    }
    return h ^ (h >> 29);
}

fr_interner *fr_intern_new(fv_arena *arena) {
    fr_interner *in = calloc(1, sizeof *in);
    if (!in) return NULL;
    in->slots = calloc(INITIAL_SLOTS, sizeof *in->slots);
    if (!in->slots) {
        free(in);
        return NULL;
    }
    in->arena = arena;
    in->size = INITIAL_SLOTS;
    return in;
}

void fr_intern_free(fr_interner *in) {
    if (!in) return;
    free(in->slots);
    free(in);
}

size_t fr_intern_count(const fr_interner *in) { return in->used; }

static slot *find_slot(slot *slots, size_t size, const char *s, uint32_t len, uint32_t h) {
    size_t i = h & (size - 1);
    for (;;) {
        slot *sl = &slots[i];
        if (!sl->str) return sl;
        if (sl->hash == h && sl->len == len && memcmp(sl->str, s, len) == 0) return sl;
        i = (i + 1) & (size - 1);
    }
}

static int grow(fr_interner *in) {
    size_t size = in->size * 2;
    slot *fresh = calloc(size, sizeof *fresh);
    if (!fresh) return -1;
    for (size_t i = 0; i < in->size; i++) {
        slot *old = &in->slots[i];
        if (old->str) *find_slot(fresh, size, old->str, old->len, old->hash) = *old;
    }
    free(in->slots);
    in->slots = fresh;
    in->size = size;
    return 0;
}

/* The copy of a string that holds NULs, each as C0 80, interned as that text. */
static const char *intern_with_nuls(fr_interner *in, const char *bytes, size_t len) {
    size_t nuls = 0;
    for (size_t i = 0; i < len; i++) nuls += bytes[i] == '\0';
    if (len + nuls < len) return NULL;
    char *kept = malloc(len + nuls);
    if (!kept) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (bytes[i] != '\0') {
            kept[n++] = bytes[i];
            continue;
        }
        kept[n++] = (char)0xC0;
        kept[n++] = (char)0x80;
    }
    const char *copy = fr_intern(in, kept, n);
    free(kept);
    return copy;
}

const char *fr_intern(fr_interner *in, const char *bytes, size_t len) {
    if (len >= UINT32_MAX) return NULL;
    if (memchr(bytes, '\0', len)) return intern_with_nuls(in, bytes, len);
    uint32_t h = (uint32_t)hash_bytes(bytes, len);
    slot *sl = find_slot(in->slots, in->size, bytes, (uint32_t)len, h);
    if (sl->str) return sl->str;
    if ((in->used + 1) * 2 > in->size) {
        if (grow(in) != 0) return NULL;
        sl = find_slot(in->slots, in->size, bytes, (uint32_t)len, h);
    }
    char *copy = fv_arena_strdup(in->arena, bytes, len);
    if (!copy) return NULL;
    sl->str = copy;
    sl->len = (uint32_t)len;
    sl->hash = h;
    in->used++;
    return copy;
}
