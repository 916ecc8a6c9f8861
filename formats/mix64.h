/* mix64.h — the 64-bit finalizer every hash table of the project ends with.
 *
 * It scrambles a value so that nearby keys (pointers a few bytes apart, consecutive ids, short
 * strings read as words) land far apart in a power-of-two table: xor-shift and multiply rounds,
 * the constants of MurmurHash3's fmix64 (a published fact, not code). A finalizer, not a digest:
 * it is a bijection, so it never merges two keys, and it is cheap enough to inline into the
 * loops that hash every entry and every call. formats/ uses it for the value tree's dicts and
 * the analyzer for its stores and indexes.
 */
#ifndef FRTRACE_MIX64_H
#define FRTRACE_MIX64_H

#include <stdint.h>

static inline uint64_t fr_mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

#endif
