/* dumper.c — builds an fr_dump from the ring and the registry, and writes it atomically.
 *
 * A workspace holds everything an fr_dump points to, sized once for the ring's capacity: the
 * ring snapshots, the fr_entry array, shapes, per-entry strings, the groups/status/comms
 * arrays, the pickle writer's staging buffer, string memo and scratch. The dumper thread owns
 * one (under a mutex); the fatal-signal handler owns the other, so a crash while the dumper
 * is writing still gets its dump. Strings are formatted with the hand-written helpers below,
 * never with stdio, so that the fatal path stays async-signal-safe. Every dump carries the
 * process's identity (identity.h); ordinary dumps also every thread's stack (thread_stacks.h),
 * which the fatal one leaves out (capturing them is not async-signal-safe).
 */
#include "dumper.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../formats/atomic_file.h"
#include "../formats/dump.h"
#include "../formats/dump_write.h"
#include "../formats/pickle_write.h"
#include "../formats/recorder_keys.h"
#include "comms.h"
#include "config.h"
#include "identity.h"
#include "members.h"
#include "recorder.h"
#include "ring.h"
#include "thread_stacks.h"

#define STAGING_BYTES (64 * 1024)
#define MEMO_SLOTS    8192
#define SCRATCH_BYTES (256 * 1024)
#define MEMBER_SLOTS  (64 * 1024) /* global ranks of all communicators' member lists */

typedef struct entry_text {
    char profiling_name[48];
    char thread_id[24];
    char thread_name[16];
} entry_text;

typedef struct workspace {
    uint32_t capacity;
    rec_snapshot *snaps;
    fr_entry *entries;
    entry_text *texts;
    int64_t *dims;       /* 2 per entry: input, output */
    fr_shape *shapes;    /* 2 per entry */
    const char **dtypes; /* 1 per entry: input and output share it */
    fr_group_config groups[REC_MAX_COMMS];
    fr_pg_status status[REC_MAX_COMMS];
    fr_comm_info comms[REC_MAX_COMMS];
    int64_t members[MEMBER_SLOTS];
    uint8_t staging[STAGING_BYTES];
    pw_memo_slot memo[MEMO_SLOTS];
    uint8_t scratch[SCRATCH_BYTES];
    char name[256];      /* FRTRACE_DUMP_PREFIX + rank: the file's name in FRTRACE_DUMP_DIR */
    fr_atomic_file file; /* its temporary file (atomic_file.h: random name, O_EXCL) */
} workspace;

static workspace *g_normal, *g_fatal;
static pthread_mutex_t g_dump_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int g_fatal_taken;

/* --- async-signal-safe formatting ---------------------------------------------------------- */

size_t rec_fmt_u64(char *out, uint64_t v) {
    char tmp[24];
    size_t n = 0, len = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) out[len++] = tmp[--n];
    out[len] = '\0';
    return len;
}

size_t rec_fmt_i64(char *out, int64_t v) {
    if (v >= 0) return rec_fmt_u64(out, (uint64_t)v);
    out[0] = '-';
    return 1 + rec_fmt_u64(out + 1, (uint64_t)0 - (uint64_t)v);
}

/* Appends `s` to the NUL-terminated `out` of capacity `cap`, truncating. */
static void append(char *out, size_t cap, const char *s) {
    size_t n = strlen(out), m = strlen(s);
    if (n + 1 >= cap) return;
    if (m > cap - n - 1) m = cap - n - 1;
    memcpy(out + n, s, m);
    out[n + m] = '\0';
}

static void append_i64(char *out, size_t cap, int64_t v) {
    char num[24];
    rec_fmt_i64(num, v);
    append(out, cap, num);
}

void rec_format_version(char *out, size_t cap, int major, int minor, int patch) {
    out[0] = '\0';
    append_i64(out, cap, major);
    append(out, cap, ".");
    append_i64(out, cap, minor);
    append(out, cap, ".");
    append_i64(out, cap, patch);
}

/* --- workspaces ---------------------------------------------------------------------------- */

static void *map_zeroed(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static workspace *workspace_new(uint32_t capacity) {
    workspace *ws = map_zeroed(sizeof *ws);
    if (ws == NULL) return NULL;
    size_t n = capacity ? capacity : 1;
    ws->capacity = capacity;
    ws->snaps = map_zeroed(n * sizeof *ws->snaps);
    ws->entries = map_zeroed(n * sizeof *ws->entries);
    ws->texts = map_zeroed(n * sizeof *ws->texts);
    ws->dims = map_zeroed(2 * n * sizeof *ws->dims);
    ws->shapes = map_zeroed(2 * n * sizeof *ws->shapes);
    ws->dtypes = map_zeroed(n * sizeof *ws->dtypes);
    if (!ws->snaps || !ws->entries || !ws->texts || !ws->dims || !ws->shapes || !ws->dtypes)
        return NULL; /* a few pages leak on a failure that ends recording anyway */
    return ws;
}

int rec_dump_prepare(uint32_t capacity) {
    if (g_normal == NULL) g_normal = workspace_new(capacity);
    if (g_fatal == NULL) g_fatal = workspace_new(capacity);
    return (g_normal != NULL && g_fatal != NULL) ? 0 : -1;
}

void rec_dump_forget(void) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    g_dump_lock = fresh; /* the parent's dumper thread may have held it at fork time */
    atomic_store(&g_fatal_taken, 0);
}

/* --- from the ring to an fr_dump ----------------------------------------------------------- */

static const char *const g_op_names[REC_OP_COUNT_] = {
    [REC_OP_ALL_REDUCE] = "nccl:all_reduce",
    [REC_OP_BROADCAST] = "nccl:broadcast",
    [REC_OP_REDUCE] = "nccl:reduce",
    [REC_OP_ALL_GATHER] = "nccl:all_gather",
    [REC_OP_REDUCE_SCATTER] = "nccl:reduce_scatter",
    [REC_OP_ALL_TO_ALL] = "nccl:all_to_all",
    [REC_OP_GATHER] = "nccl:gather",
    [REC_OP_SCATTER] = "nccl:scatter",
    [REC_OP_SEND] = "nccl:send",
    [REC_OP_RECV] = "nccl:recv",
    [REC_OP_COALESCED] = "nccl:coalesced",
};

/* c10 names of ncclDataType_t 0..11 */
static const char *const g_dtype_names[] = {
    "Char", "Byte",  "Int",    "UInt32",   "Long",          "UInt64",
    "Half", "Float", "Double", "BFloat16", "Float8_e4m3fn", "Float8_e5m2",
};

static const char *dtype_name(unsigned dtype) {
    return dtype < sizeof g_dtype_names / sizeof g_dtype_names[0] ? g_dtype_names[dtype] : "Byte";
}

/* "nccl:send 0->1" / "nccl:recv 1<-0" with group-local ranks, as PyTorch names them. */
static void p2p_name(char *out, size_t cap, const rec_call *call, int64_t my_rank) {
    out[0] = '\0';
    append(out, cap, g_op_names[call->op]);
    append(out, cap, " ");
    append_i64(out, cap, my_rank);
    append(out, cap, call->op == REC_OP_SEND ? "->" : "<-");
    append_i64(out, cap, call->peer);
}

/* Element counts of the input and output tensors PyTorch would have passed. */
static void op_sizes(const rec_call *call, int64_t nranks, int64_t *in, int64_t *out) {
    int64_t n = (int64_t)call->count, all = n * (nranks > 0 ? nranks : 1);
    *in = *out = n;
    switch (call->op) {
    case REC_OP_ALL_GATHER:
    case REC_OP_GATHER: *out = all; break;
    case REC_OP_REDUCE_SCATTER:
    case REC_OP_SCATTER: *in = all; break;
    case REC_OP_ALL_TO_ALL: *in = *out = all; break;
    default: break;
    }
}

static void fill_sizes(workspace *ws, uint32_t i, const rec_call *call, const rec_comm *c) {
    fr_entry *e = &ws->entries[i];
    if (call->op == REC_OP_COALESCED) {
        e->input_sizes = e->output_sizes = (fr_shapes){ 0, NULL };
        e->input_dtypes = e->output_dtypes = (fr_strings){ 0, NULL };
        return;
    }
    int64_t *dims = &ws->dims[2 * i];
    fr_shape *shapes = &ws->shapes[2 * i];
    op_sizes(call, atomic_load_explicit(&c->nranks, memory_order_relaxed), &dims[0], &dims[1]);
    shapes[0] = (fr_shape){ 1, &dims[0] };
    shapes[1] = (fr_shape){ 1, &dims[1] };
    e->input_sizes = (fr_shapes){ 1, &shapes[0] };
    e->output_sizes = (fr_shapes){ 1, &shapes[1] };
    ws->dtypes[i] = dtype_name(call->dtype);
    e->input_dtypes = e->output_dtypes = (fr_strings){ 1, &ws->dtypes[i] };
}

static fr_state entry_state(uint64_t status) {
    unsigned s = REC_STATUS_STATE(status);
    return s == REC_COMPLETED ? FR_STATE_COMPLETED
                              : (s == REC_STARTED ? FR_STATE_STARTED : FR_STATE_SCHEDULED);
}

static void fill_entry(workspace *ws, uint32_t i, const rec_snapshot *snap, int64_t timeout_ms) {
    const rec_call *call = &snap->call;
    const rec_comm *c = rec_comms_at(call->comm);
    fr_entry *e = &ws->entries[i];
    entry_text *t = &ws->texts[i];
    memset(e, 0, sizeof *e);
    e->record_id = (int64_t)call->record_id;
    e->pg_id = call->comm;
    e->pg_name = c->pg_name;
    e->pg_desc = c->desc;
    memcpy(t->thread_name, call->thread_name, sizeof call->thread_name);
    t->thread_name[sizeof call->thread_name] = '\0';
    rec_fmt_u64(t->thread_id, call->tid);
    e->thread_name = t->thread_name;
    e->thread_id = t->thread_id;
    e->collective_seq_id = call->coll_seq;
    e->p2p_seq_id = call->p2p_seq;
    e->op_id = call->op_id;
    if (call->op == REC_OP_SEND || call->op == REC_OP_RECV) {
        p2p_name(t->profiling_name, sizeof t->profiling_name, call,
                 atomic_load_explicit(&c->rank, memory_order_relaxed));
        e->profiling_name = t->profiling_name;
    } else {
        e->profiling_name = call->op < REC_OP_COUNT_ ? g_op_names[call->op] : "nccl:unknown";
    }
    e->time_created_ns = call->time_created_ns;
    fill_sizes(ws, i, call, c);
    e->state = entry_state(snap->status);
    e->time_discovered_started_ns = snap->time_started_ns;
    e->time_discovered_completed_ns = snap->time_completed_ns;
    e->has_duration = snap->has_duration && e->state == FR_STATE_COMPLETED;
    e->duration_ms = snap->duration_ms;
    e->retired = e->state == FR_STATE_COMPLETED;
    e->is_p2p = (call->flags & REC_F_P2P) != 0;
    e->timeout_ms = timeout_ms;
}

static uint32_t collect_entries(workspace *ws) {
    const rec_ring *ring = rec_recorder_ring();
    int64_t timeout_ms = rec_config_get()->timeout_ms;
    uint64_t first, end;
    uint32_t n = 0;
    rec_ring_window(ring, &first, &end);
    for (uint64_t id = first; id < end && n < ws->capacity; id++) {
        rec_snapshot *snap = &ws->snaps[n];
        /* A slot being written right now is skipped: it is the newest call, not yet launched. */
        if (!rec_ring_read(ring, id, snap) || REC_STATUS_STATE(snap->status) == REC_DROPPED)
            continue;
        if (snap->call.comm >= rec_comms_count()) continue;
        fill_entry(ws, n, snap, timeout_ms);
        n++;
    }
    return n;
}

/* The communicator's member list (members.h) from the workspace's pool, or none ("[]"). */
static fr_group_config group_config(workspace *ws, rec_comm *c, uint32_t *used) {
    fr_group_config g = { .name = c->pg_name, .desc = c->desc, .nranks = 0, .ranks = NULL };
    rec_members_note(c, rec_recorder_known_rank()); /* a rank learned after the comm's init */
    uint32_t n = rec_members_read(c, &ws->members[*used], MEMBER_SLOTS - *used);
    if (n > 0) {
        g.nranks = n;
        g.ranks = &ws->members[*used];
        *used += n;
    }
    return g;
}

static void collect_comms(workspace *ws, fr_dump *d) {
    uint32_t n = rec_comms_count(), used = 0;
    for (uint32_t i = 0; i < n; i++) {
        rec_comm *c = rec_comms_at((int)i);
        int64_t enqueued = atomic_load_explicit(&c->coll_seq, memory_order_relaxed);
        ws->groups[i] = group_config(ws, c, &used);
        ws->status[i] = (fr_pg_status){
            .pg_id = i,
            .last_enqueued = enqueued > 0 ? enqueued : -1,
            .last_started = atomic_load_explicit(&c->last_started, memory_order_relaxed),
            .last_completed = atomic_load_explicit(&c->last_completed, memory_order_relaxed)
        };
        ws->comms[i] =
            (fr_comm_info){ .pg_name = c->pg_name,
                            .comm_rank = atomic_load_explicit(&c->rank, memory_order_relaxed),
                            .comm_size = atomic_load_explicit(&c->nranks, memory_order_relaxed),
                            .parent = c->parent >= 0 ? rec_comms_at(c->parent)->pg_name : NULL,
                            .color = c->color,
                            .nccl_hash = c->hash_text,
                            .state = rec_comm_state_text(c) };
    }
    d->ngroups = d->nstatus = d->ncomms = n;
    d->groups = ws->groups;
    d->status = ws->status;
    d->comms = ws->comms;
}

static void build_dump(workspace *ws, fr_dump *d, const char *trigger) {
    memset(d, 0, sizeof *d);
    d->encoding = FR_ENCODING_PICKLE;
    d->version = "2.10";
    d->version_major = 2;
    d->version_minor = 10;
    d->comm_lib_version = rec_recorder_nccl_version();
    collect_comms(ws, d);
    d->has_entries = true;
    d->nentries = collect_entries(ws);
    d->entries = ws->entries;
    d->global_rank = rec_recorder_global_rank();
    d->trigger = trigger;
    d->has_identity = true;
    rec_identity_fill(&d->identity);
}

/* --- files --------------------------------------------------------------------------------- */

static void build_name(workspace *ws) {
    ws->name[0] = '\0';
    append(ws->name, sizeof ws->name, rec_config_get()->dump_prefix); /* bounded by config.c */
    append_i64(ws->name, sizeof ws->name, rec_recorder_global_rank());
}

static int fd_sink(void *ctx, const uint8_t *bytes, size_t len) {
    return fr_atomic_write(ctx, bytes, len); /* stops short of RLIMIT_FSIZE: EFBIG, no SIGXFSZ */
}

static int write_pickle(workspace *ws, const fr_dump *d) {
    pw_writer w;
    fr_error err;
    fr_write_options opts = { .version_major = 2,
                              .version_minor = 10,
                              .scratch = ws->scratch,
                              .scratch_size = sizeof ws->scratch };
    pw_init(&w, ws->staging, sizeof ws->staging, ws->memo, MEMO_SLOTS, fd_sink, &ws->file);
    int rc = fr_dump_write_pickle(d, &opts, &w, &err);
    return (pw_finish(&w, NULL, NULL) == 0 && rc == 0) ? 0 : -1;
}

static int write_json(workspace *ws, const fr_dump *d) {
    fr_error err;
    fr_write_options opts = { .version_major = 2, .version_minor = 10 };
    return fr_dump_write_json(d, &opts, fd_sink, &ws->file, &err) == 0 &&
                   fd_sink(&ws->file, (const uint8_t *)"\n", 1) == 0
               ? 0
               : -1;
}

/* Through atomic_file.h: a temporary file of a random name, created exclusively in the dump
 * directory (so a link planted there is never followed, and the normal and the fatal writer
 * never share one), written, fsync'ed and renamed over FRTRACE_DUMP_PREFIX<rank>: a reader
 * never sees half a dump, and a failed one (a full disk, RLIMIT_FSIZE) leaves no file behind.
 * The directory, of any length, is opened (and created) one component at a time. */
static int write_file(workspace *ws, const fr_dump *d, bool json) {
    const char *dir = rec_config_get()->dump_dir;
    build_name(ws);
    int dir_fd = fr_dir_open(dir, strlen(dir), true);
    if (dir_fd < 0) return -1;
    int rc = fr_atomic_open_at(&ws->file, dir_fd, ws->name, 0644, NULL);
    if (rc == 0) {
        rc = json ? write_json(ws, d) : write_pickle(ws, d);
        if (rc == 0)
            rc = fr_atomic_commit(&ws->file, NULL);
        else
            fr_atomic_abort(&ws->file);
    }
    int saved = errno;
    close(dir_fd);
    errno = saved;
    return rc;
}

int rec_dump_write(const char *trigger) {
    if (g_normal == NULL) return -1;
    fr_dump d;
    rec_stacks stacks;
    char name[sizeof g_normal->name];
    pthread_mutex_lock(&g_dump_lock);
    bool with_stacks = rec_stacks_collect(&stacks); /* first: the entries then are the newest */
    build_dump(g_normal, &d, trigger);
    d.has_stacks = with_stacks;
    d.threads = stacks.threads;
    d.nthreads = stacks.nthreads;
    int rc = write_file(g_normal, &d, rec_config_get()->json);
    int saved = errno;
    memcpy(name, g_normal->name, sizeof name);
    if (with_stacks) rec_stacks_release(&stacks);
    pthread_mutex_unlock(&g_dump_lock);
    /* A dump is what the user will look for: said at the default level, with rank and file. */
    const char *dir = rec_config_get()->dump_dir;
    if (rc == 0)
        rec_log(REC_LOG_WARN, "rank %lld dumped %u entries to %s/%s (%s)",
                (long long)rec_recorder_global_rank(), d.nentries, dir, name, trigger);
    else
        rec_log(REC_LOG_WARN, "rank %lld: dump (%s) to %s/%s failed: %s; no file left behind",
                (long long)rec_recorder_global_rank(), trigger, dir, name, strerror(saved));
    return rc;
}

const char *rec_dump_op_name(unsigned op) {
    return op < REC_OP_COUNT_ && g_op_names[op] ? g_op_names[op] : "nccl:unknown";
}

void rec_dump_fatal(int sig) {
#define FATAL(n) FR_TRIGGER_FATAL_PREFIX #n
    static const char *const names[] = { FATAL(0),  FATAL(1),  FATAL(2),  FATAL(3), FATAL(4),
                                         FATAL(5),  FATAL(6),  FATAL(7),  FATAL(8), FATAL(9),
                                         FATAL(10), FATAL(11), FATAL(12), FATAL(13) };
#undef FATAL
    if (g_fatal == NULL || atomic_exchange(&g_fatal_taken, 1) != 0) return;
    fr_dump d;
    build_dump(g_fatal, &d, sig >= 0 && sig < 14 ? names[sig] : FR_TRIGGER_FATAL);
    write_file(g_fatal, &d, false); /* JSON needs the heap: the fatal dump is always a pickle */
}
