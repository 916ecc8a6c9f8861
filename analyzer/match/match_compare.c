/* match_compare.c — comparing entries: shapes, sizes and dtypes of one call against another
 * (fa_match_entries), a call's own consistency (all_gather multiplies by the group size...),
 * whether a send and a recv pair up, and the names of match and member states.
 */
#include "match/match_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fa_mb_is_all_to_all(const char *t) { return (fa_op_flags(t) & FA_OP_ALL_TO_ALL) != 0; }

/* ---------------------------------------------------------------- entry comparison --- */

static bool shapes_equal(const fr_shapes *a, const fr_shapes *b) {
    if (a->count != b->count) return false;
    for (uint32_t i = 0; i < a->count; i++) {
        if (a->shapes[i].ndim != b->shapes[i].ndim) return false;
        for (uint32_t d = 0; d < a->shapes[i].ndim; d++)
            if (a->shapes[i].dims[d] != b->shapes[i].dims[d]) return false;
    }
    return true;
}

static int64_t total_numel(const fr_shapes *s) {
    int64_t total = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        int64_t n = 1;
        for (uint32_t d = 0; d < s->shapes[i].ndim; d++) n *= s->shapes[i].dims[d];
        total += n;
    }
    return total;
}

bool fa_mb_has_tensor(const fr_shapes *s) { return s->count > 0 && s->shapes[0].ndim > 0; }

static bool string_in(const fr_strings *set, const char *s) {
    for (uint32_t i = 0; i < set->count; i++)
        if (strcmp(set->items[i], s) == 0) return true;
    return false;
}

static bool dtype_sets_equal(const fr_strings *a, const fr_strings *b) {
    for (uint32_t i = 0; i < a->count; i++)
        if (!string_in(b, a->items[i])) return false;
    for (uint32_t i = 0; i < b->count; i++)
        if (!string_in(a, b->items[i])) return false;
    return true;
}

void fa_shapes_text(const fr_shapes *s, char *buf, size_t len) {
    size_t at = (size_t)snprintf(buf, len, "[");
    for (uint32_t i = 0; i < s->count && at < len; i++) {
        at += (size_t)snprintf(buf + at, len - at, "%s[", i ? ", " : "");
        for (uint32_t d = 0; d < s->shapes[i].ndim && at < len; d++)
            at += (size_t)snprintf(buf + at, len - at, "%s%lld", d ? ", " : "",
                                   (long long)s->shapes[i].dims[d]);
        if (at < len) at += (size_t)snprintf(buf + at, len - at, "]");
    }
    if (at < len) snprintf(buf + at, len - at, "]");
}

/* A call's own consistency, independent of other ranks: all_reduce keeps its size,
 * all_gather multiplies by the group size, reduce_scatter divides by it, in and out dtypes
 * agree. Returns the kind of problem or FA_FULLY_MATCHED. */
fa_match_state fa_mb_check_intrinsic(const fr_entry *self, const fr_entry *other, uint32_t flags,
                                     int64_t group_size, char *why, size_t whylen) {
    char a[256], b[256];
    if ((flags & FA_OP_ALL_REDUCE) && !shapes_equal(&self->input_sizes, &other->output_sizes)) {
        fa_shapes_text(&self->input_sizes, a, sizeof a);
        fa_shapes_text(&other->output_sizes, b, sizeof b);
        if (why) snprintf(why, whylen, "input sizes %s but output sizes %s", a, b);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if ((flags & FA_OP_ALL_GATHER) &&
        total_numel(&other->output_sizes) != total_numel(&self->input_sizes) * group_size) {
        if (why)
            snprintf(why, whylen, "output numel %lld is not input numel %lld x group size %lld",
                     (long long)total_numel(&other->output_sizes),
                     (long long)total_numel(&self->input_sizes), (long long)group_size);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if ((flags & FA_OP_REDUCE_SCATTER) &&
        total_numel(&other->input_sizes) != total_numel(&self->output_sizes) * group_size) {
        if (why)
            snprintf(why, whylen, "input numel %lld is not output numel %lld x group size %lld",
                     (long long)total_numel(&other->input_sizes),
                     (long long)total_numel(&self->output_sizes), (long long)group_size);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    return FA_FULLY_MATCHED;
}

bool fa_mb_own_dtypes_disagree(const fr_entry *e, uint32_t flags) {
    return !(flags & (FA_OP_SCATTER | FA_OP_GATHER | FA_OP_BROADCAST)) &&
           fa_mb_has_tensor(&e->input_sizes) && fa_mb_has_tensor(&e->output_sizes) &&
           e->input_dtypes.count && e->output_dtypes.count &&
           !dtype_sets_equal(&e->input_dtypes, &e->output_dtypes);
}

static bool compares_inputs(const char *type) {
    return !fa_mb_is_all_to_all(type) && strcmp(type, "scatter") != 0;
}
static bool compares_outputs(const char *type) {
    return !fa_mb_is_all_to_all(type) && strcmp(type, "gather") != 0;
}

fa_match_state fa_mb_match_p2p(const fa_opname *a, const fr_entry *ea, const fa_opname *b,
                               const fr_entry *eb) {
    if (a->is_send == b->is_send || !(b->is_send || b->is_recv)) return FA_SIZE_OR_SYNTAX_MISMATCH;
    bool src_ok = a->src < 0 || b->src < 0 || a->src == b->src;
    bool dst_ok = a->dst < 0 || b->dst < 0 || a->dst == b->dst;
    const fr_entry *send = a->is_send ? ea : eb, *recv = a->is_send ? eb : ea;
    const fr_shapes *got = recv->output_sizes.count ? &recv->output_sizes : &recv->input_sizes;
    if (!src_ok || !dst_ok || !shapes_equal(&send->input_sizes, got))
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    /* the bytes of one dtype read as another: a recv of BFloat16 fed a Half send is no match,
     * though NCCL moves the bytes (tests/sim seed 2939: a wrong peer shifted a rank's sends) */
    const fr_strings *want = recv->output_dtypes.count ? &recv->output_dtypes : &recv->input_dtypes;
    if (fa_mb_has_tensor(&send->input_sizes) && send->input_dtypes.count && want->count &&
        !dtype_sets_equal(&send->input_dtypes, want))
        return FA_COLLECTIVE_DTYPE_MISMATCH;
    return FA_FULLY_MATCHED;
}

fa_match_state fa_match_entries(const fr_entry *a, const fr_entry *b, int64_t group_size, char *why,
                                size_t whylen) {
    fa_opname na, nb;
    char x[256], y[256];
    if (why && whylen) why[0] = '\0';
    if (fa_parse_profiling_name(a->profiling_name, &na) != 0 ||
        fa_parse_profiling_name(b->profiling_name, &nb) != 0) {
        if (why) snprintf(why, whylen, "profiling name without a backend prefix");
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if (na.is_send || na.is_recv) return fa_mb_match_p2p(&na, a, &nb, b);
    if (strcmp(na.type, nb.type) != 0) {
        if (why)
            snprintf(why, whylen, "expected collective type '%s', found '%s'", na.type, nb.type);
        return FA_COLLECTIVE_TYPE_MISMATCH;
    }
    if (fa_is_end_marker(na.type)) return FA_FULLY_MATCHED;
    if (compares_inputs(na.type) && !shapes_equal(&a->input_sizes, &b->input_sizes)) {
        fa_shapes_text(&a->input_sizes, x, sizeof x);
        fa_shapes_text(&b->input_sizes, y, sizeof y);
        if (why) snprintf(why, whylen, "expected input sizes %s, found %s", x, y);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if (compares_outputs(na.type) && !shapes_equal(&a->output_sizes, &b->output_sizes)) {
        fa_shapes_text(&a->output_sizes, x, sizeof x);
        fa_shapes_text(&b->output_sizes, y, sizeof y);
        if (why) snprintf(why, whylen, "expected output sizes %s, found %s", x, y);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    uint32_t flags = fa_op_flags(na.type);
    fa_match_state s = fa_mb_check_intrinsic(a, b, flags, group_size, why, whylen);
    if (s != FA_FULLY_MATCHED) return s;
    bool dtype_bad = fa_mb_own_dtypes_disagree(a, flags) ||
                     (!(flags & (FA_OP_SCATTER | FA_OP_BROADCAST)) &&
                      fa_mb_has_tensor(&a->input_sizes) && fa_mb_has_tensor(&b->input_sizes) &&
                      !dtype_sets_equal(&a->input_dtypes, &b->input_dtypes)) ||
                     (strcmp(na.type, "gather") != 0 && fa_mb_has_tensor(&a->output_sizes) &&
                      fa_mb_has_tensor(&b->output_sizes) &&
                      !dtype_sets_equal(&a->output_dtypes, &b->output_dtypes));
    if (dtype_bad) {
        if (why) snprintf(why, whylen, "dtypes differ");
        return FA_COLLECTIVE_DTYPE_MISMATCH;
    }
    if (a->state != b->state) {
        if (why)
            snprintf(why, whylen, "expected state '%s', found '%s'", fr_state_name(a->state),
                     fr_state_name(b->state));
        return FA_COLLECTIVE_STATE_MISMATCH;
    }
    if (fa_mb_is_all_to_all(na.type)) return FA_UNDECIDED;
    return FA_FULLY_MATCHED;
}

const char *fa_match_state_name(fa_match_state state) {
    switch (state) {
    case FA_FULLY_MATCHED: return "FULLY_MATCHED";
    case FA_COLLECTIVE_TYPE_MISMATCH: return "COLLECTIVE_TYPE_MISMATCH";
    case FA_SIZE_OR_SYNTAX_MISMATCH: return "SIZE_OR_SYNTAX_MISMATCH";
    case FA_COLLECTIVE_STATE_MISMATCH: return "COLLECTIVE_STATE_MISMATCH";
    case FA_COLLECTIVE_DTYPE_MISMATCH: return "COLLECTIVE_DTYPE_MISMATCH";
    case FA_UNDECIDED: return "UNDECIDED";
    }
    return "?";
}

const char *fa_member_state_name(fa_member_state s) {
    switch (s) {
    case FA_MS_COMPLETED: return "completed";
    case FA_MS_STARTED: return "started";
    case FA_MS_SCHEDULED: return "scheduled";
    case FA_MS_IN_FLIGHT: return "in flight (no entry)";
    case FA_MS_NEVER: return "never issued";
    case FA_MS_NO_DUMP: return "no dump";
    case FA_MS_STALE: return "unknown (older dump)";
    }
    return "?";
}
