/* asig_trap.c — an LD_PRELOAD interposer that proves the fatal-signal dump allocates nothing
 * and formats nothing with stdio (libasig-trap.so, for t0400).
 *
 * It defines the allocator (malloc, calloc, realloc, free, memalign and friends) and the
 * formatting/stdio calls a careless writer would use (the printf family, their _chk forms,
 * fputs, fwrite, fopen, fflush, strerror). Each forwards to glibc, except on a thread that
 * called asigTrapArm(): there, the first such call writes "asig-trap: NAME" to stderr and ends
 * the process with _exit(97), so the test sees exit 97 instead of death by SIGSEGV and no dump.
 * The driver arms the trap on the thread that is about to raise SIGSEGV (CRASH=r@s), so
 * everything the recorder's handler does runs under it; other threads (the fake stream workers,
 * the recorder's own threads) allocate freely. The allocator forwards to glibc's __libc_*
 * entry points (dlsym itself may allocate); the others are looked up with dlsym(RTLD_NEXT).
 * Not for sanitizer builds: ASan owns malloc there.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static __thread int t_armed __attribute__((tls_model("initial-exec")));

EXPORT void asigTrapArm(void);
void asigTrapArm(void) { t_armed = 1; }

static void trap(const char *name) {
    if (!t_armed) return;
    static const char prefix[] = "asig-trap: ";
    (void)!write(2, prefix, sizeof prefix - 1);
    (void)!write(2, name, strlen(name));
    (void)!write(2, "\n", 1);
    _exit(97);
}

/* --- the allocator ------------------------------------------------------------------------- */

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

EXPORT void *malloc(size_t n) {
    trap("malloc");
    return __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t size) {
    trap("calloc");
    return __libc_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t n) {
    trap("realloc");
    return __libc_realloc(p, n);
}

EXPORT void free(void *p) {
    trap("free");
    __libc_free(p);
}

EXPORT void *memalign(size_t align, size_t n) {
    trap("memalign");
    return __libc_memalign(align, n);
}

EXPORT void *aligned_alloc(size_t align, size_t n) {
    trap("aligned_alloc");
    return __libc_memalign(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n) {
    trap("posix_memalign");
    void *p = __libc_memalign(align, n);
    if (p == NULL) return 12; /* ENOMEM */
    *out = p;
    return 0;
}

/* --- formatting and stdio ------------------------------------------------------------------ */

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

typedef int (*vsnprintf_fn)(char *, size_t, const char *, va_list);
typedef int (*vsnprintf_chk_fn)(char *, size_t, int, size_t, const char *, va_list);
typedef int (*vsprintf_fn)(char *, const char *, va_list);
typedef int (*vfprintf_fn)(FILE *, const char *, va_list);
typedef int (*vfprintf_chk_fn)(FILE *, int, const char *, va_list);

EXPORT int vsnprintf(char *s, size_t n, const char *fmt, va_list ap) {
    trap("vsnprintf");
    return REAL("vsnprintf", vsnprintf_fn)(s, n, fmt, ap);
}

/* A variadic one traps under its own name, then calls the real va_list form `vname` (of type
 * vtype) with `args`, which pass the va_list ap. */
#define VARIADIC(name, params, last, vname, vtype, args)                                           \
    EXPORT int name params;                                                                        \
    int name params {                                                                              \
        va_list ap;                                                                                \
        trap(#name);                                                                               \
        va_start(ap, last);                                                                        \
        int r = REAL(vname, vtype) args;                                                           \
        va_end(ap);                                                                                \
        return r;                                                                                  \
    }

/* (unformatted: clang-format would read `FILE *f` here as a multiplication) */
/* clang-format off */
VARIADIC(snprintf, (char *s, size_t n, const char *fmt, ...), fmt, "vsnprintf", vsnprintf_fn,
         (s, n, fmt, ap))
VARIADIC(sprintf, (char *s, const char *fmt, ...), fmt, "vsprintf", vsprintf_fn, (s, fmt, ap))
VARIADIC(__snprintf_chk, (char *s, size_t n, int flag, size_t slen, const char *fmt, ...), fmt,
         "__vsnprintf_chk", vsnprintf_chk_fn, (s, n, flag, slen, fmt, ap))
VARIADIC(fprintf, (FILE *f, const char *fmt, ...), fmt, "vfprintf", vfprintf_fn, (f, fmt, ap))
VARIADIC(printf, (const char *fmt, ...), fmt, "vfprintf", vfprintf_fn, (stdout, fmt, ap))
VARIADIC(__fprintf_chk, (FILE *f, int flag, const char *fmt, ...), fmt, "__vfprintf_chk",
         vfprintf_chk_fn, (f, flag, fmt, ap))
/* clang-format on */

EXPORT int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap);
int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap) {
    trap("__vsnprintf_chk");
    return REAL("__vsnprintf_chk", vsnprintf_chk_fn)(s, n, flag, slen, fmt, ap);
}

EXPORT int vfprintf(FILE *f, const char *fmt, va_list ap) {
    trap("vfprintf");
    return REAL("vfprintf", vfprintf_fn)(f, fmt, ap);
}

EXPORT int fputs(const char *s, FILE *f) {
    trap("fputs");
    return REAL("fputs", int (*)(const char *, FILE *))(s, f);
}

EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *f) {
    trap("fwrite");
    return REAL("fwrite", size_t(*)(const void *, size_t, size_t, FILE *))(p, size, n, f);
}

EXPORT FILE *fopen(const char *path, const char *mode) {
    trap("fopen");
    return REAL("fopen", FILE * (*)(const char *, const char *))(path, mode);
}

EXPORT int fflush(FILE *f) {
    trap("fflush");
    return REAL("fflush", int (*)(FILE *))(f);
}

EXPORT char *strerror(int errnum) {
    trap("strerror");
    return REAL("strerror", char *(*)(int))(errnum);
}
