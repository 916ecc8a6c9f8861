/* grow.h — the one growth rule for heap arrays (pointer + capacity) in formats/ and analyzer/.
 *
 * fr_grow makes room for `need` items in an array whose contents are kept: the capacity
 * doubles, from `first` for an empty array, until `need` fits, and the array is reallocated,
 * so that filling it one item at a time is linear. fr_scratch is for scratch memory whose
 * contents need not survive (a buffer refilled for each list): it allocates exactly the larger
 * of `need` and `first` and frees the old one, copying nothing. Both leave the array as it
 * was when out of memory or when the size would overflow, and return -1; 0 otherwise. Inline:
 * the common case (the room is there) is one comparison at the caller. fr_grow_parallel is
 * fr_grow for several arrays that share one capacity (columns of one table): when one of them
 * cannot grow, those before it may have grown, but each is still valid and *cap still fits all.
 */
#ifndef FRTRACE_GROW_H
#define FRTRACE_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The capacity fr_grow gives an array of `cap` items that must hold `need`. */
static inline size_t fr_grown_cap(size_t cap, size_t need, size_t first) {
    size_t c = cap ? cap : first ? first : 1;
    while (c < need) {
        if (c > SIZE_MAX / 2) return need;
        c *= 2;
    }
    return c;
}

/* Room for `need` items of `size` bytes in *v (*cap items), contents kept. */
static inline int fr_grow(void **v, size_t *cap, size_t need, size_t size, size_t first) {
    if (need <= *cap) return 0;
    size_t c = fr_grown_cap(*cap, need, first);
    if (c > SIZE_MAX / size) return -1;
    void *p = realloc(*v, c * size);
    if (!p) return -1;
    *v = p;
    *cap = c;
    return 0;
}

/* Room for `need` items in each of the n arrays *arrays[i], of sizes[i] bytes an item, that share
 * the capacity *cap; contents kept. */
static inline int fr_grow_parallel(void **const arrays[], const size_t sizes[], size_t n,
                                   size_t *cap, size_t need, size_t first) {
    if (need <= *cap) return 0;
    size_t c = fr_grown_cap(*cap, need, first);
    for (size_t i = 0; i < n; i++) {
        if (c > SIZE_MAX / sizes[i]) return -1;
        void *p = realloc(*arrays[i], c * sizes[i]);
        if (!p) return -1;
        *arrays[i] = p;
    }
    *cap = c;
    return 0;
}

/* Room for `need` items of `size` bytes in *buf (*cap items), contents dropped; *buf is never
 * NULL after a success, even for need 0. */
static inline int fr_scratch(void **buf, size_t *cap, size_t need, size_t size, size_t first) {
    if (*buf && *cap >= need) return 0;
    size_t want = need < first ? first : need;
    if (want > SIZE_MAX / size) return -1;
    void *p = malloc(want * size);
    if (!p) return -1;
    free(*buf);
    *buf = p;
    *cap = want;
    return 0;
}

#endif
