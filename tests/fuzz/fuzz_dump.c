/* fuzz_dump.c — libFuzzer harness: any bytes through fr_dump_decode (pickle or JSON, by content)
 * and, when a dump comes out, a walk over every field of every group, status, comm and entry
 * that checks what dump.h promises. Must never crash, leak, hang or overread.
 *
 * The walk reads every string to its NUL and every array to its count, so ASan reports a wrong
 * count or a dangling pointer, and UBSan a bool or enum outside its values. The explicit checks
 * (CHECK, which aborts so that libFuzzer records the input) are the documented invariants:
 * an array is non-NULL when its count is, strings are non-NULL where dump.h does not allow NULL,
 * version is "2.MINOR" with version_major/minor its parse, the encoding is the one the content
 * shows, `truncated` comes with a warning, and equal group names share one interned pointer.
 *
 * Each input is also decoded a second time with one fr_decoder kept for the whole run, whose
 * result must equal fr_dump_decode's exactly (dump_decoder.h): that catches a cache or table
 * that outlives the file it belongs to. A failure there depends on the inputs run before it,
 * so its reproducer is the sequence, not one file; the first decode alone is self-contained.
 * A third decode with the direct paths turned off (dump_pickle_fast.c for pickles, dump_json_fast.c
 * for JSON) must give the same result again: the fuzzer hunts for any input the two paths read
 * differently.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_decoder.h"
#include "../unit/dump_equal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_dump: invariant failed at %s:%d: %s\n", __FILE__, __LINE__,      \
                    #cond);                                                                        \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Folded into by every read so that the compiler keeps the reads. */
static volatile uint64_t sink;

/* Unsigned, so that adding input-controlled int64 values cannot overflow. */
static void fold(int64_t v) { sink += (uint64_t)v; }

static void touch_str(const char *s) {
    if (s) sink += strlen(s);
}

static void touch_str_required(const char *s) {
    CHECK(s != NULL);
    touch_str(s);
}

static void walk_shapes(const fr_shapes *sh) {
    CHECK(sh->count == 0 || sh->shapes != NULL);
    for (uint32_t i = 0; i < sh->count; i++) {
        const fr_shape *s = &sh->shapes[i];
        CHECK(s->ndim == 0 || s->dims != NULL);
        for (uint32_t k = 0; k < s->ndim; k++) fold(s->dims[k]);
    }
}

static void walk_strings(const fr_strings *st) {
    CHECK(st->count == 0 || st->items != NULL);
    for (uint32_t i = 0; i < st->count; i++) touch_str_required(st->items[i]);
}

/* "2.MINOR" with digits only on both sides, as decode_version accepts it; none only in a JSON
 * dump cut short (PyTorch sorts its keys: "version" comes after "entries" and was cut off). */
static void check_version(const fr_dump *d) {
    if (!d->version) {
        CHECK(d->truncated && d->encoding == FR_ENCODING_JSON && d->warning != NULL);
        return;
    }
    const char *s = d->version, *dot = strchr(s, '.');
    CHECK(dot != NULL && dot > s && dot[1] != '\0');
    long long major = 0, minor = 0;
    for (const char *p = s; p < dot; p++) {
        CHECK(*p >= '0' && *p <= '9');
        if (major < 1000000) major = major * 10 + (*p - '0');
    }
    for (const char *p = dot + 1; *p; p++) {
        CHECK(*p >= '0' && *p <= '9');
        if (minor < 100000000) minor = minor * 10 + (*p - '0');
    }
    CHECK(d->version_major == 2 && major == 2);
    CHECK(d->version_minor >= 0 && (long long)d->version_minor == minor);
}

static bool input_is_json(const uint8_t *b, size_t len) {
    size_t i = 0;
    if (len >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf) i = 3;
    while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) i++;
    return i < len && b[i] == '{';
}

static void walk(const fr_dump *d, const uint8_t *data, size_t size) {
    CHECK(d->arena != NULL);
    CHECK(d->encoding == (input_is_json(data, size) ? FR_ENCODING_JSON : FR_ENCODING_PICKLE));
    check_version(d);
    touch_str(d->comm_lib_version);
    touch_str(d->trigger);
    touch_str(d->warning);
    if (d->truncated) CHECK(d->warning != NULL); /* a pickle or JSON dump cut short: said */

    CHECK(d->ngroups == 0 || d->groups != NULL);
    for (uint32_t i = 0; i < d->ngroups; i++) {
        const fr_group_config *g = &d->groups[i];
        touch_str_required(g->name);
        touch_str_required(g->desc);
        CHECK(g->nranks == 0 || g->ranks != NULL);
        for (uint32_t k = 0; k < g->nranks; k++) fold(g->ranks[k]);
    }

    CHECK(d->nstatus == 0 || d->status != NULL);
    for (uint32_t i = 0; i < d->nstatus; i++) {
        const fr_pg_status *s = &d->status[i];
        fold(s->pg_id);
        fold(s->last_enqueued);
        fold(s->last_started);
        fold(s->last_completed);
    }

    CHECK(d->ncomms == 0 || d->comms != NULL);
    for (uint32_t i = 0; i < d->ncomms; i++) {
        const fr_comm_info *c = &d->comms[i];
        touch_str_required(c->pg_name);
        touch_str(c->parent);
        touch_str(c->nccl_hash);
        touch_str(c->state);
        fold(c->comm_rank);
        fold(c->comm_size);
        fold(c->color);
    }

    if (d->encoding == FR_ENCODING_JSON) CHECK(d->has_entries);
    if (!d->has_entries) CHECK(d->nentries == 0);
    CHECK(d->nentries == 0 || d->entries != NULL);
    for (uint32_t i = 0; i < d->nentries; i++) {
        const fr_entry *e = &d->entries[i];
        touch_str_required(e->pg_name);
        touch_str_required(e->pg_desc);
        touch_str_required(e->profiling_name);
        touch_str(e->thread_name);
        touch_str(e->thread_id);
        CHECK(e->state == FR_STATE_SCHEDULED || e->state == FR_STATE_STARTED ||
              e->state == FR_STATE_COMPLETED);
        CHECK(strcmp(fr_state_name(e->state), "unknown") != 0);
        const int64_t ints[] = { e->record_id,
                                 e->pg_id,
                                 e->collective_seq_id,
                                 e->p2p_seq_id,
                                 e->op_id,
                                 e->time_created_ns,
                                 e->time_discovered_started_ns,
                                 e->time_discovered_completed_ns,
                                 e->timeout_ms };
        for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) fold(ints[k]);
        sink += (uint64_t)e->has_duration + (uint64_t)e->retired + (uint64_t)e->is_p2p;
        if (e->has_duration) sink += (uint64_t)(e->duration_ms != 0.0);
        walk_shapes(&e->input_sizes);
        walk_shapes(&e->output_sizes);
        walk_strings(&e->input_dtypes);
        walk_strings(&e->output_dtypes);
        CHECK(e->nframes == 0 || e->frames != NULL);
        for (uint32_t k = 0; k < e->nframes; k++) {
            touch_str_required(e->frames[k].name);
            touch_str_required(e->frames[k].filename);
            fold(e->frames[k].line);
        }
        /* interned per dump: a non-empty group name equal to the entry's is the same pointer
         * (bounded so that a dump of many groups and many entries stays fast) */
        for (uint32_t k = 0; k < d->ngroups && k < 64; k++) {
            const char *name = d->groups[k].name;
            if (name[0] && e->pg_name[0] && strcmp(name, e->pg_name) == 0)
                CHECK(name == e->pg_name);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* kept for the whole run on purpose: see the comment at the top */
    static fr_decoder *reused, *generic;
    if (!reused) reused = fr_decoder_new();
    if (!generic && (generic = fr_decoder_new())) fr_decoder_use_fast_path(generic, false);

    fr_dump *d = NULL;
    fr_error err;
    memset(&err, 0, sizeof err);
    int rc = fr_dump_decode(data, size, &d, &err);
    if (rc == 0) {
        CHECK(d != NULL);
        walk(d, data, size);
    } else {
        CHECK(rc == -1 && d == NULL);
        CHECK(err.msg[0] != '\0' && memchr(err.msg, '\0', sizeof err.msg) != NULL);
    }

    if (reused) {
        fr_dump *d2 = NULL;
        fr_error err2;
        memset(&err2, 0, sizeof err2);
        int rc2 = fr_decoder_decode(reused, data, size, &d2, &err2);
        CHECK(rc2 == rc);
        if (rc == 0)
            CHECK(dump_eq(d, d2));
        else
            CHECK(strcmp(err.msg, err2.msg) == 0);
        fr_dump_free(d2);
    }
    if (generic) { /* the direct paths must decode exactly as the generic one */
        fr_dump *d3 = NULL;
        fr_error err3;
        memset(&err3, 0, sizeof err3);
        int rc3 = fr_decoder_decode(generic, data, size, &d3, &err3);
        CHECK(rc3 == rc);
        if (rc == 0)
            CHECK(dump_eq(d, d3));
        else
            CHECK(strcmp(err.msg, err3.msg) == 0);
        fr_dump_free(d3);
    }
    fr_dump_free(d);
    return 0;
}
