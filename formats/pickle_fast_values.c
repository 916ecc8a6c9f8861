/* pickle_fast_values.c — the values the direct pickle reader takes as a tree: the header's
 * (version, pg_config, pg_status...: small, mapped by dump.c's rules like the generic path's)
 * and any value under a key no entry field takes. Scalars are memoized as SLOT_VALUE nodes so
 * that a later GET reads the same node; containers are never read back (their PUTs are
 * SLOT_OTHER), which keeps the work linear. Depth is bounded (MAX_DEPTH), and so is the tree's
 * memory (the budget).
 */
#include "pickle_fast.h"

/* A memoized string's node in the header's tree: made once, shared by every GET. */
fv *pf_str_node(dump_pickle_fast *f, memo_slot *s) {
    if (!s->node) s->node = fv_str(f->values, s->bytes, s->len);
    return s->node;
}

/* The items of EMPTY_LIST's batches, into `list`. */
static bool read_list_items(dump_pickle_fast *f, fv *list, int depth) {
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_APPENDS) {
            fv *item = pf_read_value(f, depth + 1);
            if (!item || !fv_seq_push(f->values, list, item)) return false;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    return true;
}

static bool read_dict_items(dump_pickle_fast *f, fv *dict, int depth) {
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_SETITEMS) {
            fv *key = pf_read_value(f, depth + 1);
            if (!key || key->kind == FV_LIST || key->kind == FV_DICT || key->kind == FV_TUPLE)
                return false;
            fv *value = pf_read_value(f, depth + 1);
            if (!value || !fv_dict_set(f->values, dict, key, value)) return false;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    return true;
}

/* A scalar of the header with the PUTs after it. */
static fv *scalar(dump_pickle_fast *f, fv *node) {
    return node && put_all(f, (memo_slot){ .kind = SLOT_VALUE, .node = node }) ? node : NULL;
}

/* Any value of the regular shape, as a node of the header's tree (NULL: decline). */
fv *pf_read_value(dump_pickle_fast *f, int depth) {
    if (depth > MAX_DEPTH || fv_arena_used(f->values) > f->budget) return NULL;
    int64_t i;
    double d;
    fv *v;
    switch (peek(f)) {
    case OP_BINUNICODE:
    case OP_SHORT_BINUNICODE: {
        memo_slot *s = read_str(f);
        return s ? pf_str_node(f, s) : NULL;
    }
    case OP_BINGET:
    case OP_LONG_BINGET: {
        memo_slot *s = take_get(f);
        if (!s || (s->kind != SLOT_STR && s->kind != SLOT_VALUE)) return NULL;
        if (is_put(peek(f))) return NULL;
        return s->kind == SLOT_STR ? pf_str_node(f, s) : s->node;
    }
    case OP_BININT1:
    case OP_BININT2:
    case OP_BININT:
    case OP_LONG1: return read_int_raw(f, &i) ? scalar(f, fv_int(f->values, i)) : NULL;
    case OP_BINFLOAT: return pf_read_float_raw(f, &d) ? scalar(f, fv_float(f->values, d)) : NULL;
    case OP_NONE: f->p++; return scalar(f, fv_none(f->values));
    case OP_NEWTRUE: f->p++; return scalar(f, fv_bool(f->values, true));
    case OP_NEWFALSE: f->p++; return scalar(f, fv_bool(f->values, false));
    case OP_EMPTY_TUPLE: f->p++; return (v = fv_tuple(f->values)) && put_other(f) ? v : NULL;
    case OP_EMPTY_LIST:
        f->p++;
        return (v = fv_list(f->values)) && put_other(f) && read_list_items(f, v, depth) ? v : NULL;
    case OP_EMPTY_DICT:
        f->p++;
        return (v = fv_dict(f->values)) && put_other(f) && read_dict_items(f, v, depth) ? v : NULL;
    default: return NULL;
    }
}
