/* unwind.c — libdw's unwinder over a captured thread, or a frame-pointer walk (see unwind.h).
 *
 * libdw unwinds a thread through callbacks: get_thread hands it the capture, set_initial_registers
 * the captured registers (DWARF numbering, which is thread_capture's order), memory_read the
 * stack words. The session (a Dwfl) is made once per dump: the modules are reported from
 * /proc/self/maps by libdw itself (dwfl_linux_proc_report: plain file reads), and each frame's
 * name is taken while the session lives. The libdw types are declared here by their published
 * ABI (libdwfl.h of elfutils), so that building needs no elfutils headers.
 */
#include "unwind.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "elf_symbols.h"
#include "safe_read.h"

/* --- libdw's interface (libdwfl.h) --------------------------------------------------------- */

typedef struct Dwfl Dwfl;
typedef struct Dwfl_Module Dwfl_Module;
typedef struct Dwfl_Thread Dwfl_Thread;
typedef struct Dwfl_Frame Dwfl_Frame;
typedef uint64_t Dwarf_Addr;
typedef uint64_t Dwarf_Word;

typedef struct dw_callbacks {
    int (*find_elf)(Dwfl_Module *, void **, const char *, Dwarf_Addr, char **, void **);
    int (*find_debuginfo)(Dwfl_Module *, void **, const char *, Dwarf_Addr, const char *,
                          const char *, uint32_t, char **);
    int (*section_address)(Dwfl_Module *, void **, const char *, Dwarf_Addr, const char *, uint32_t,
                           const void *, Dwarf_Addr *);
    char **debuginfo_path;
} dw_callbacks;

typedef struct dw_thread_callbacks {
    pid_t (*next_thread)(Dwfl *, void *, void **);
    bool (*get_thread)(Dwfl *, pid_t, void *, void **);
    bool (*memory_read)(Dwfl *, Dwarf_Addr, Dwarf_Word *, void *);
    bool (*set_initial_registers)(Dwfl_Thread *, void *);
    void (*detach)(Dwfl *, void *);
    void (*thread_detach)(Dwfl_Thread *, void *);
} dw_thread_callbacks;

static struct {
    bool loaded;
    Dwfl *(*begin)(const dw_callbacks *);
    void (*end)(Dwfl *);
    int (*proc_report)(Dwfl *, pid_t);
    int (*report_end)(Dwfl *, void *, void *);
    int (*proc_find_elf)(Dwfl_Module *, void **, const char *, Dwarf_Addr, char **, void **);
    bool (*attach_state)(Dwfl *, void *, pid_t, const dw_thread_callbacks *, void *);
    int (*getthread_frames)(Dwfl *, pid_t, int (*)(Dwfl_Frame *, void *), void *);
    bool (*frame_pc)(Dwfl_Frame *, Dwarf_Addr *, bool *);
    bool (*state_registers)(Dwfl_Thread *, int, unsigned, const Dwarf_Word *);
    Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
    const char *(*module_addrname)(Dwfl_Module *, Dwarf_Addr);
    const char *(*errmsg)(int);
} g_dw;

bool rec_unwind_load(void) {
#if defined(__x86_64__)
    if (g_dw.loaded) return true;
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
#define LOAD(field, name) ((*(void **)&g_dw.field = dlsym(lib, name)) != NULL)
    bool ok = LOAD(begin, "dwfl_begin") && LOAD(end, "dwfl_end") &&
              LOAD(proc_report, "dwfl_linux_proc_report") && LOAD(report_end, "dwfl_report_end") &&
              LOAD(proc_find_elf, "dwfl_linux_proc_find_elf") &&
              LOAD(attach_state, "dwfl_attach_state") &&
              LOAD(getthread_frames, "dwfl_getthread_frames") && LOAD(frame_pc, "dwfl_frame_pc") &&
              LOAD(state_registers, "dwfl_thread_state_registers") &&
              LOAD(addrmodule, "dwfl_addrmodule") &&
              LOAD(module_addrname, "dwfl_module_addrname") && LOAD(errmsg, "dwfl_errmsg");
#undef LOAD
    if (!ok) {
        dlclose(lib);
        return false;
    }
    g_dw.loaded = true;
    return true;
#else
    return false;
#endif
}

/* --- the session --------------------------------------------------------------------------- */

struct rec_unwinder {
    const rec_maps *maps;
    rec_elf_cache *elf;
    Dwfl *dwfl; /* NULL: frame pointers */
    const rec_captured *current;
};

/* A stack word: from the capture when it lies there, else read safely from live memory. */
static bool read_word(const rec_captured *c, uintptr_t addr, uint64_t *out) {
    if (c && c->stack_len >= 8 && addr >= c->stack_lo && addr - c->stack_lo <= c->stack_len - 8) {
        memcpy(out, c->stack + (addr - c->stack_lo), 8);
        return true;
    }
    return rec_safe_word(addr, out);
}

/* No separate debug files: only what the loaded object itself holds. */
static int no_debuginfo(Dwfl_Module *m, void **u, const char *name, Dwarf_Addr base,
                        const char *file, const char *link, uint32_t crc, char **out) {
    (void)m, (void)u, (void)name, (void)base, (void)file, (void)link, (void)crc, (void)out;
    return -1;
}

static pid_t dw_next_thread(Dwfl *d, void *arg, void **thread_arg) {
    (void)d, (void)arg, (void)thread_arg;
    return 0; /* threads are only ever asked for by id */
}

static bool dw_get_thread(Dwfl *d, pid_t tid, void *arg, void **thread_arg) {
    (void)d;
    rec_unwinder *u = arg;
    *thread_arg = u;
    return u->current && u->current->tid == tid;
}

static bool dw_memory_read(Dwfl *d, Dwarf_Addr addr, Dwarf_Word *out, void *arg) {
    (void)d;
    return read_word(((rec_unwinder *)arg)->current, (uintptr_t)addr, out);
}

static bool dw_initial_registers(Dwfl_Thread *t, void *arg) {
    rec_unwinder *u = arg;
    return g_dw.state_registers(t, 0, REC_NREGS, u->current->regs);
}

static const dw_thread_callbacks g_thread_callbacks = {
    .next_thread = dw_next_thread,
    .get_thread = dw_get_thread,
    .memory_read = dw_memory_read,
    .set_initial_registers = dw_initial_registers,
};

static Dwfl *open_session(rec_unwinder *u) {
    static dw_callbacks callbacks;
    callbacks.find_elf = g_dw.proc_find_elf;
    callbacks.find_debuginfo = no_debuginfo;
    Dwfl *d = g_dw.begin(&callbacks);
    const char *step = !d                                    ? "dwfl_begin"
                       : g_dw.proc_report(d, getpid()) != 0  ? "dwfl_linux_proc_report"
                       : g_dw.report_end(d, NULL, NULL) != 0 ? "dwfl_report_end"
                       : !g_dw.attach_state(d, NULL, getpid(), &g_thread_callbacks, u)
                           ? "dwfl_attach_state"
                           : NULL;
    if (!step) return d;
    rec_log(REC_LOG_WARN, "libdw: %s failed (%s): native stacks by frame pointers", step,
            g_dw.errmsg(-1));
    if (d) g_dw.end(d);
    return NULL;
}

rec_unwinder *rec_unwinder_begin(rec_scratch *s, const rec_maps *maps, bool use_libdw) {
    rec_unwinder *u = rec_scratch_alloc(s, sizeof *u);
    if (!u) return NULL;
    u->maps = maps;
    if (use_libdw && g_dw.loaded) u->dwfl = open_session(u);
    if (!u->dwfl) u->elf = rec_elf_cache_new(s);
    return u;
}

const char *rec_unwinder_method(const rec_unwinder *u) {
    return u->dwfl ? "libdw" : "frame pointers";
}

void rec_unwinder_end(rec_unwinder *u) {
    if (!u) return;
    if (u->dwfl) g_dw.end(u->dwfl);
    u->dwfl = NULL;
    rec_elf_cache_close(u->elf);
}

/* --- libdw's walk -------------------------------------------------------------------------- */

typedef struct walk {
    rec_pc *out;
    size_t n, max;
    bool cut;
} walk;

static int on_frame(Dwfl_Frame *frame, void *arg) {
    walk *w = arg;
    Dwarf_Addr pc;
    bool activation = false;
    if (!g_dw.frame_pc(frame, &pc, &activation)) return 1;
    if (w->n == w->max) {
        w->cut = true;
        return 1;
    }
    bool caller = w->n > 0 && !activation;
    w->out[w->n++] = (rec_pc){ (uintptr_t)pc, caller };
    return 0;
}

static size_t unwind_libdw(rec_unwinder *u, const rec_captured *c, walk *w) {
    u->current = c;
    g_dw.getthread_frames(u->dwfl, c->tid, on_frame, w); /* an error ends the stack early */
    u->current = NULL;
    return w->n;
}

/* --- the frame-pointer walk ---------------------------------------------------------------- */

/* Whether the bytes before addr end a call instruction (call rel32, or call through a register
 * or memory: FF /2), so that addr is a plausible return address. */
static bool after_call(const rec_maps *maps, uintptr_t addr) {
    uint8_t b[8];
    if (!rec_maps_is_code(maps, addr) || !rec_safe_read_all(b, addr - 8, 8)) return false;
    if (b[3] == 0xE8) return true;
    static const int at[] = { 6, 5, 2, 1 }; /* FF at addr-2, -3, -6, -7 */
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        if (b[at[i]] == 0xFF && ((b[at[i] + 1] >> 3) & 7) == 2) return true;
    return false;
}

static void add(walk *w, uintptr_t pc, bool caller) {
    if (w->n == w->max)
        w->cut = true;
    else
        w->out[w->n++] = (rec_pc){ pc, caller };
}

static size_t unwind_frame_pointers(rec_unwinder *u, const rec_captured *c, walk *w) {
    uintptr_t sp = (uintptr_t)c->regs[7], fp = (uintptr_t)c->regs[6];
    uint64_t word;
    add(w, (uintptr_t)c->regs[16], false);
    /* the innermost function may have no frame of its own: its caller is the first return
     * address on the stack, below the frame pointer's frame */
    for (uintptr_t at = sp; at < sp + 512 && (fp <= sp || at < fp); at += 8)
        if (read_word(c, at, &word) && after_call(u->maps, (uintptr_t)word)) {
            add(w, (uintptr_t)word, true);
            break;
        }
    for (int depth = 0; !w->cut && depth < 1024; depth++) {
        uint64_t next, ret;
        if (fp < sp || fp - sp > (64u << 20) || (fp & 7) || !read_word(c, fp, &next) ||
            !read_word(c, fp + 8, &ret) || !rec_maps_is_code(u->maps, (uintptr_t)ret))
            break;
        if (w->n < 2 || w->out[w->n - 1].pc != ret) add(w, (uintptr_t)ret, true);
        if (next <= fp) break;
        fp = (uintptr_t)next;
    }
    return w->n;
}

size_t rec_unwind(rec_unwinder *u, const rec_captured *c, rec_pc *out, size_t max, bool *cut) {
    walk w = { out, 0, max, false };
    if (c->status != REC_CAPTURED || max == 0) return 0;
    if (u->dwfl)
        unwind_libdw(u, c, &w);
    else
        unwind_frame_pointers(u, c, &w);
    *cut = w.cut;
    return w.n;
}

const char *rec_unwind_symbol(rec_unwinder *u, const rec_pc *pc) {
    uintptr_t at = pc->caller ? pc->pc - 1 : pc->pc;
    if (u->dwfl) {
        Dwfl_Module *m = g_dw.addrmodule(u->dwfl, at);
        return m ? g_dw.module_addrname(m, at) : NULL;
    }
    return rec_elf_symbol(u->elf, rec_maps_find(u->maps, at), at);
}
