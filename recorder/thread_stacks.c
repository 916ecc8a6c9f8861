/* thread_stacks.c — listing, capturing, unwinding and naming every thread at dump time
 * (thread_stacks.h).
 *
 * Threads are captured REC_CAPTURE_BATCH at a time, so that a batch's stack copies can be
 * unwound and their buffers reused before the next: a process with hundreds of threads needs
 * two megabytes of copies, not fifty. Python stacks are read after the native ones (a thread that
 * runs Python meanwhile may show a slightly later Python stack than its native one; a blocked
 * thread, the interesting kind, shows the same). C++ names are demangled with the process's own
 * __cxa_demangle when it has one (PyTorch processes do); it allocates, which the dumper thread
 * may do.
 */
#include "thread_stacks.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "proc_maps.h"
#include "pystacks.h"
#include "thread_capture.h"
#include "unwind.h"

#define SCRATCH_BYTES (128u << 20) /* virtual; only what is touched costs memory */
#define BUDGET_MS                                                                                  \
    10000             /* for all the stacks of one dump: naming frames first reads                 \
                       * each object's symbol table, seconds for libtorch's */
#define ANSWER_MS 300 /* for one batch of threads to run their handlers */
#define NOTE_MAX  240

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn g_demangle;
static bool g_libdw;

void rec_stacks_prepare(void) {
    const rec_config *cfg = rec_config_get();
    if (cfg->stacks == REC_STACKS_OFF) return;
    if (!rec_capture_install())
        rec_log(REC_LOG_INFO, "no free real-time signal: dumps will have no native stacks");
    g_libdw = cfg->stacks == REC_STACKS_ON && rec_unwind_load();
    if (cfg->stacks == REC_STACKS_ON && !g_libdw)
        rec_log(REC_LOG_INFO, "no libdw.so.1: native stacks by frame pointers");
    rec_py_load();
    *(void **)&g_demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
}

/* --- the process's threads ----------------------------------------------------------------- */

typedef struct thread {
    pid_t tid;
    char name[20];
    bool blocked;
} thread;

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The decimal text of v at out (NUL-terminated, at least 21 bytes). */
static void decimal(char *out, uint64_t v) {
    char tmp[24];
    size_t n = 0, len = 0;
    do tmp[n++] = (char)('0' + v % 10), v /= 10;
    while (v);
    while (n) out[len++] = tmp[--n];
    out[len] = '\0';
}

/* /proc/self/task/<tid>/<file> into buf (NUL-terminated); its length, 0 when unreadable. */
static size_t read_task_file(pid_t tid, const char *file, char *buf, size_t cap) {
    char path[64] = "/proc/self/task/", num[24];
    decimal(num, (uint64_t)tid);
    strcat(path, num);
    strcat(path, "/");
    strcat(path, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n > 0 ? (size_t)n : 0;
}

/* Whether the thread's signal mask ("SigBlk:" of its status, hex) holds sig. */
static bool blocks(pid_t tid, int sig) {
    char status[4096];
    if (sig <= 0 || !read_task_file(tid, "status", status, sizeof status)) return false;
    const char *p = strstr(status, "SigBlk:");
    if (!p) return false;
    p += 7;
    while (*p == ' ' || *p == '\t') p++;
    const char *end = p;
    while ((*end >= '0' && *end <= '9') || (*end >= 'a' && *end <= 'f')) end++;
    int bit = sig - 1; /* bit 0 of the last hex digit is signal 1 */
    const char *digit = end - 1 - bit / 4;
    if (digit < p) return false;
    int v = *digit <= '9' ? *digit - '0' : *digit - 'a' + 10;
    return (v >> (bit % 4)) & 1;
}

struct dirent64_raw {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* The process's thread ids, ascending, at most max; *more counts the ones left out. */
static size_t list_threads(pid_t *tids, size_t max, size_t *more) {
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    size_t n = 0;
    *more = 0;
    if (fd < 0) return 0;
    char buf[8192];
    long got;
    while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long at = 0; at < got;) {
            struct dirent64_raw *d = (struct dirent64_raw *)(buf + at);
            at += d->reclen;
            char *end;
            long tid = strtol(d->name, &end, 10);
            if (d->name[0] < '0' || d->name[0] > '9' || *end || tid <= 0) continue;
            if (n < max)
                tids[n++] = (pid_t)tid;
            else
                (*more)++;
        }
    }
    close(fd);
    for (size_t i = 1; i < n; i++) /* insertion sort: a few hundred, mostly in order */
        for (size_t k = i; k > 0 && tids[k - 1] > tids[k]; k--) {
            pid_t t = tids[k];
            tids[k] = tids[k - 1];
            tids[k - 1] = t;
        }
    return n;
}

/* The recorder's own threads (watchdog.c names them); threads inherit their creator's name, so
 * only these exact names are ours ("frtrace-driver" is a host). */
static bool recorder_thread(const char *name) {
    return strcmp(name, "frtrace-poll") == 0 || strcmp(name, "frtrace-dump") == 0;
}

/* The threads worth a stack: all but the recorder's own and this one. */
static size_t describe_threads(rec_scratch *s, thread **out, size_t *more) {
    pid_t *tids = rec_scratch_alloc(s, REC_STACKS_MAX_THREADS * sizeof *tids);
    thread *t = rec_scratch_alloc(s, REC_STACKS_MAX_THREADS * sizeof *t);
    if (!tids || !t) return 0;
    size_t n = list_threads(tids, REC_STACKS_MAX_THREADS, more), kept = 0;
    pid_t self = (pid_t)syscall(SYS_gettid);
    for (size_t i = 0; i < n; i++) {
        thread *x = &t[kept];
        size_t len = read_task_file(tids[i], "comm", x->name, sizeof x->name);
        if (len && x->name[len - 1] == '\n') x->name[len - 1] = '\0';
        if (tids[i] == self || recorder_thread(x->name)) continue;
        x->tid = tids[i];
        x->blocked = blocks(tids[i], rec_capture_signal());
        kept++;
    }
    *out = t;
    return kept;
}

/* --- notes --------------------------------------------------------------------------------- */

static void note_add(char *note, const char *part) {
    size_t n = strlen(note), m = strlen(part);
    if (n && n + 2 < NOTE_MAX) strcat(note, "; "), n += 2;
    if (n + m >= NOTE_MAX) m = NOTE_MAX - 1 - n;
    memcpy(note + n, part, m);
    note[n + m] = '\0';
}

static const char *capture_problem(rec_capture_status status) {
    switch (status) {
    case REC_CAPTURE_BLOCKED: return "native stack not captured: the thread blocks signals";
    case REC_CAPTURE_NO_ANSWER:
        return "native stack not captured: the thread did not answer (stopped, or in the kernel)";
    case REC_CAPTURE_GONE: return "native stack not captured: the thread exited";
    case REC_CAPTURE_UNSUPPORTED: return "native stack not captured on this machine";
    case REC_CAPTURED: break;
    }
    return NULL;
}

/* --- native frames ------------------------------------------------------------------------- */

typedef struct session {
    rec_scratch *s;
    rec_maps maps;
    rec_unwinder *unwinder;
    rec_pc pcs[REC_STACKS_MAX_NATIVE];
} session;

/* The readable name of a symbol: demangled when it is a C++ one and the process can. */
static const char *readable(session *ss, const char *symbol) {
    if (!symbol) return NULL;
    if (g_demangle && symbol[0] == '_' && symbol[1] == 'Z') {
        int status = -1;
        char *plain = g_demangle(symbol, NULL, NULL, &status);
        if (plain && status == 0) {
            const char *kept = rec_scratch_text(ss->s, plain, strlen(plain), 200);
            free(plain);
            return kept;
        }
        free(plain);
    }
    return rec_scratch_text(ss->s, symbol, strlen(symbol), 200);
}

static void native_frames(session *ss, const rec_captured *c, fr_thread_stack *t, char *note) {
    bool cut = false;
    size_t n = rec_unwind(ss->unwinder, c, ss->pcs, REC_STACKS_MAX_NATIVE, &cut);
    fr_frame *f = rec_scratch_alloc(ss->s, (n ? n : 1) * sizeof *f);
    if (!f) return;
    for (size_t i = 0; i < n; i++) {
        const rec_mapping *m = rec_maps_find(&ss->maps, ss->pcs[i].pc);
        f[i].name = readable(ss, rec_unwind_symbol(ss->unwinder, &ss->pcs[i]));
        f[i].filename = m ? m->path : "";
        f[i].line = m ? (int64_t)(ss->pcs[i].pc - m->base) : (int64_t)ss->pcs[i].pc;
    }
    t->native = f;
    t->nnative = (uint32_t)n;
    if (cut) note_add(note, "native stack cut (innermost frames kept)");
}

/* --- the whole capture --------------------------------------------------------------------- */

typedef struct collection {
    session ss;
    bool by_frame_pointers; /* the unwinder's method, kept past its end */
    thread *threads;
    size_t n;
    fr_thread_stack *out;
    char (*notes)[NOTE_MAX];
} collection;

/* Native stacks of every thread, a batch at a time, within the budget. */
static bool capture_all(collection *c, int64_t deadline) {
    pid_t tids[REC_CAPTURE_BATCH];
    bool blocked[REC_CAPTURE_BATCH];
    rec_captured cap[REC_CAPTURE_BATCH];
    uint8_t *buffers = rec_scratch_alloc(c->ss.s, (size_t)REC_CAPTURE_BATCH * REC_STACK_COPY);
    bool settled = true;
    for (size_t first = 0; first < c->n; first += REC_CAPTURE_BATCH) {
        size_t k = c->n - first < REC_CAPTURE_BATCH ? c->n - first : REC_CAPTURE_BATCH;
        if (!buffers || !settled || now_ms() >= deadline) {
            for (size_t i = first; i < c->n; i++)
                note_add(c->notes[i], "native stack not captured: the dump's time for stacks "
                                      "ran out");
            break;
        }
        for (size_t i = 0; i < k; i++) {
            tids[i] = c->threads[first + i].tid;
            blocked[i] = c->threads[first + i].blocked;
        }
        settled = rec_capture_batch(tids, blocked, k, buffers, ANSWER_MS, cap);
        for (size_t i = 0; i < k; i++) {
            const char *problem = !settled               ? "native stack lost"
                                  : now_ms() >= deadline ? "native stack not unwound: the "
                                                           "dump's time for stacks ran out"
                                                         : capture_problem(cap[i].status);
            if (problem)
                note_add(c->notes[first + i], problem);
            else
                native_frames(&c->ss, &cap[i], &c->out[first + i], c->notes[first + i]);
        }
    }
    return settled;
}

static void python_frames(collection *c) {
    rec_py_thread *py = rec_scratch_alloc(c->ss.s, REC_STACKS_MAX_THREADS * sizeof *py);
    if (!py) return;
    size_t n = rec_py_read(c->ss.s, py, REC_STACKS_MAX_THREADS, REC_STACKS_MAX_PYTHON);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < c->n; k++) {
            if (py[i].tid != c->threads[k].tid) continue;
            c->out[k].python = py[i].frames;
            c->out[k].npython = py[i].nframes;
            if (py[i].note) note_add(c->notes[k], py[i].note);
        }
}

/* Notes that concern the whole dump go on its first thread (the main one, lowest id). */
static void process_notes(collection *c, size_t more) {
    char text[96];
    if (c->n == 0) return;
    if (rec_py_note()) note_add(c->notes[0], rec_py_note());
    if (c->by_frame_pointers)
        note_add(c->notes[0], rec_config_get()->stacks == REC_STACKS_FRAME_POINTERS
                                  ? "native stacks by frame pointers (FRTRACE_STACKS=fp)"
                                  : "native stacks by frame pointers (libdw.so.1 not usable): "
                                    "callers may be missing");
    if (more) {
        strcpy(text, "threads past the first 256 not captured: ");
        decimal(text + strlen(text), more);
        strcat(text, " more");
        note_add(c->notes[c->n - 1], text);
    }
}

bool rec_stacks_collect(rec_stacks *st) {
    memset(st, 0, sizeof *st);
    const rec_config *cfg = rec_config_get();
    if (cfg->stacks == REC_STACKS_OFF || !rec_scratch_open(&st->scratch, SCRATCH_BYTES))
        return false;
    int64_t deadline = now_ms() + BUDGET_MS;
    collection c = { .ss.s = &st->scratch };
    size_t more = 0;
    c.n = describe_threads(c.ss.s, &c.threads, &more);
    c.out = rec_scratch_alloc(c.ss.s, (c.n ? c.n : 1) * sizeof *c.out);
    c.notes = rec_scratch_alloc(c.ss.s, (c.n ? c.n : 1) * sizeof *c.notes);
    if (!c.out || !c.notes) {
        rec_scratch_close(&st->scratch);
        return false;
    }
    if (rec_maps_read(&c.ss.maps, c.ss.s))
        c.ss.unwinder = rec_unwinder_begin(c.ss.s, &c.ss.maps, g_libdw);
    if (c.ss.unwinder) {
        c.by_frame_pointers = strcmp(rec_unwinder_method(c.ss.unwinder), "libdw") != 0;
        st->keep_memory = !capture_all(&c, deadline);
    } else if (c.n)
        note_add(c.notes[0], "native stacks not captured: /proc/self/maps unreadable");
    rec_unwinder_end(c.ss.unwinder);
    python_frames(&c);
    process_notes(&c, more);
    for (size_t i = 0; i < c.n; i++) {
        c.out[i].thread_id = c.threads[i].tid;
        c.out[i].thread_name = c.threads[i].name;
        c.out[i].note = c.notes[i][0] ? c.notes[i] : NULL;
    }
    st->threads = c.out;
    st->nthreads = (uint32_t)c.n;
    rec_log(REC_LOG_INFO, "stacks of %zu threads in %lld ms (%s)", c.n,
            (long long)(now_ms() - deadline + BUDGET_MS),
            c.by_frame_pointers ? "frame pointers" : "libdw");
    return true;
}

void rec_stacks_release(rec_stacks *st) {
    if (!st->keep_memory) rec_scratch_close(&st->scratch);
    st->threads = NULL;
    st->nthreads = 0;
}
