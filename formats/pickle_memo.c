/* pickle_memo.c — the pickle machine's memo: an array while ids come the way writers number
 * them, a hash map for good from the first id that does not fit (see pickle_memo.h for why and
 * for the memory rule). Here: storing, growing the array, and moving into a bigger map.
 */
#include "pickle_memo.h"

#include <stdlib.h>
#include <string.h>

static void map_insert(memo_map *m, uint64_t id, fv *node) {
    size_t s = pickle_memo_slot(m, id);
    m->ids[s] = id;
    m->nodes[s] = node;
}

/* Gives the map `cap` slots, moving in what the array or the old map held. */
static bool memo_rehash(memo_map *m, size_t cap) {
    memo_map bigger = *m;
    bigger.ids = calloc(cap, sizeof *bigger.ids);
    bigger.nodes = calloc(cap, sizeof *bigger.nodes);
    if (!bigger.ids || !bigger.nodes) {
        free(bigger.ids);
        free(bigger.nodes);
        return false;
    }
    bigger.cap = cap;
    bigger.dense = NULL;
    bigger.dense_cap = 0;
    for (size_t i = 0; i < m->dense_cap; i++)
        if (m->dense[i]) map_insert(&bigger, i, m->dense[i]);
    for (size_t i = 0; i < m->cap; i++)
        if (m->nodes[i]) map_insert(&bigger, m->ids[i], m->nodes[i]);
    free(m->dense);
    free(m->ids);
    free(m->nodes);
    *m = bigger;
    return true;
}

bool pickle_memo_put(memo_map *m, uint64_t id, fv *node) {
    bool fresh = !pickle_memo_get(m, id);
    if ((m->count + 1) * 2 > m->map_cap)
        m->map_cap = m->map_cap ? m->map_cap * 2 : 64; /* as the map grows */
    if (!m->cap && id >= m->dense_cap) { /* array mode: grow the array if that stays small enough */
        size_t want = m->dense_cap ? m->dense_cap : 64;
        while (want <= id && want <= m->map_cap) want *= 2;
        if (id < want &&
            want * sizeof *m->dense <= m->map_cap * (sizeof *m->ids + sizeof *m->nodes)) {
            fv **dense = realloc(m->dense, want * sizeof *dense);
            if (!dense) return false;
            memset(dense + m->dense_cap, 0, (want - m->dense_cap) * sizeof *dense);
            m->dense = dense;
            m->dense_cap = want;
        } else if (!memo_rehash(m, m->map_cap)) {
            return false;
        }
    }
    if (m->cap && m->cap < m->map_cap && !memo_rehash(m, m->map_cap)) return false;
    if (fresh) m->count++;
    if (!m->cap)
        m->dense[id] = node;
    else
        map_insert(m, id, node);
    return true;
}
