/* pickle_fast_scalars.c — the direct pickle reader's out-of-line primitives (pickle_fast.h):
 * growing the memo, scratch arrays within the budget, the ASCII check, what a memoized string
 * means (an entry key, a state, a dtype: worked out once, kept in its slot), and the rarer
 * scalar encodings (None or an int, a bool, a float). Each runs once per distinct string or per
 * rare value, so a call costs nothing measurable; the hot loop's primitives are in the header.
 */
#include "pickle_fast.h"

#include <stdlib.h>

#include "grow.h"

bool pf_memo_reserve(dump_pickle_fast *f, uint32_t id) {
    if (id >= f->memo_cap) {
        if (id >= MEMO_MAX || id > f->len) return false;
        uint32_t cap = f->memo_cap ? f->memo_cap : 256;
        while (cap <= id) cap *= 2;
        memo_slot *memo = realloc(f->memo, (size_t)cap * sizeof *memo);
        if (!memo) return false;
        memset(memo + f->memo_cap, 0, (size_t)(cap - f->memo_cap) * sizeof *memo);
        f->memo = memo;
        f->memo_cap = cap;
    }
    if (id >= f->memo_hi) f->memo_hi = id + 1;
    return true;
}

/* Room for n items in a scratch array (false when out of memory or over the budget). */
bool pf_ensure(dump_pickle_fast *f, void **buf, size_t *cap, size_t n, size_t size) {
    if (n <= *cap) return true;
    if (fr_grown_cap(*cap, n, 64) > f->budget / size) return false;
    return fr_grow(buf, cap, n, size, 64) == 0;
}

/* Text this path takes as is: ASCII (the generic reader checks other UTF-8). */
bool pf_ascii(const uint8_t *s, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ull) return false;
    }
    for (; i < n; i++)
        if (s[i] & 0x80) return false;
    return true;
}

int pf_slot_field(memo_slot *s) {
    if (s->field == NOT_ASKED) s->field = (int8_t)dump_entry_field(s->bytes, s->len);
    return s->field;
}

int pf_slot_state(dump_pickle_fast *f, memo_slot *s) {
    if (s->state == NOT_ASKED) {
        const char *text = slot_interned(f, s);
        s->state = (int8_t)(text ? dump_state_of(text) : -1);
    }
    return s->state;
}

const char *pf_slot_dtype(dump_pickle_fast *f, memo_slot *s) {
    if (!s->dtype) {
        const char *text = slot_interned(f, s);
        s->dtype = text ? dump_dtype(f->b, text) : NULL;
    }
    return s->dtype;
}

bool pf_slot_is(const memo_slot *s, const char *name) {
    size_t n = strlen(name);
    return s->len == n && memcmp(s->bytes, name, n) == 0;
}

/* None (as 0) or an int: time_discovered_*. */
bool pf_read_int_or_none(dump_pickle_fast *f, int64_t *out) {
    if (next_is(f, OP_NONE)) {
        *out = 0;
        return put_other(f);
    }
    return read_int(f, out);
}

/* A bool, or the ints 0 and 1. */
bool pf_read_bool(dump_pickle_fast *f, bool *out) {
    int64_t i;
    if (next_is(f, OP_NEWTRUE))
        *out = true;
    else if (next_is(f, OP_NEWFALSE))
        *out = false;
    else if (read_int_raw(f, &i) && (i == 0 || i == 1))
        *out = i == 1;
    else
        return false;
    return put_other(f);
}

bool pf_read_float_raw(dump_pickle_fast *f, double *out) {
    if (peek(f) != OP_BINFLOAT || left(f) < 9) return false;
    uint64_t bits = 0;
    for (int i = 1; i <= 8; i++) bits = bits << 8 | f->p[i];
    memcpy(out, &bits, sizeof *out);
    f->p += 9;
    return true;
}
