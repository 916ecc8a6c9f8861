/* elf_symbols.c — .symtab/.dynsym lookups over files mapped read-only (see elf_symbols.h).
 *
 * An object is known by its path. Its load bias (what to add to a symbol's value to get its
 * address in memory) is 0 for a fixed-address executable (ET_EXEC) and, for a position-
 * independent one, the mapping's base minus the page-aligned p_vaddr of the PT_LOAD segment that
 * starts the file (0 unless the library was prelinked). Function symbols (STT_FUNC, STT_GNU_IFUNC,
 * defined, of non-zero size) are copied into an array sorted by address (heap sort: no malloc,
 * no recursion), so that a lookup is a binary search.
 */
#include "elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_OBJECTS 256
#define MAX_FILE    (1ull << 32) /* larger files are not mapped */

typedef struct symbol {
    uint64_t addr, size;
    const char *name;
} symbol;

typedef struct object {
    const char *path; /* the maps' text (lives as long as the dump's scratch) */
    bool tried;
    const uint8_t *file;
    size_t file_size;
    uint64_t bias;
    symbol *syms;
    size_t nsyms;
} object;

struct rec_elf_cache {
    rec_scratch *scratch;
    object objects[MAX_OBJECTS];
    size_t nobjects;
};

rec_elf_cache *rec_elf_cache_new(rec_scratch *s) {
    rec_elf_cache *c = rec_scratch_alloc(s, sizeof *c);
    if (c) c->scratch = s;
    return c;
}

void rec_elf_cache_close(rec_elf_cache *c) {
    if (!c) return;
    for (size_t i = 0; i < c->nobjects; i++)
        if (c->objects[i].file) munmap((void *)c->objects[i].file, c->objects[i].file_size);
    c->nobjects = 0;
}

/* --- reading the file ---------------------------------------------------------------------- */

static bool in_file(const object *o, uint64_t off, uint64_t len) {
    return off <= o->file_size && len <= o->file_size - off;
}

static const Elf64_Shdr *section(const object *o, const Elf64_Ehdr *eh, unsigned i) {
    uint64_t off = eh->e_shoff + (uint64_t)i * sizeof(Elf64_Shdr);
    return i < eh->e_shnum && in_file(o, off, sizeof(Elf64_Shdr))
               ? (const Elf64_Shdr *)(o->file + off)
               : NULL;
}

static bool valid_header(const object *o, const Elf64_Ehdr *eh) {
    return o->file_size >= sizeof *eh && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
           eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_ident[EI_DATA] == ELFDATA2LSB &&
           eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_phentsize == sizeof(Elf64_Phdr) &&
           (eh->e_type == ET_EXEC || eh->e_type == ET_DYN);
}

/* 0 for ET_EXEC; else base minus the page-aligned vaddr of the PT_LOAD at file offset 0. */
static uint64_t load_bias(const object *o, const Elf64_Ehdr *eh, uintptr_t base) {
    if (eh->e_type == ET_EXEC) return 0;
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        uint64_t off = eh->e_phoff + (uint64_t)i * sizeof(Elf64_Phdr);
        if (!in_file(o, off, sizeof(Elf64_Phdr))) break;
        const Elf64_Phdr *ph = (const Elf64_Phdr *)(o->file + off);
        if (ph->p_type == PT_LOAD && ph->p_offset == 0) return base - (ph->p_vaddr & ~4095ull);
    }
    return base;
}

/* The symbol table to read: .symtab when there is one (static functions too), else .dynsym. */
static const Elf64_Shdr *symbol_table(const object *o, const Elf64_Ehdr *eh) {
    const Elf64_Shdr *dyn = NULL;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = section(o, eh, i);
        if (!sh) break;
        if (sh->sh_type == SHT_SYMTAB) return sh;
        if (sh->sh_type == SHT_DYNSYM && !dyn) dyn = sh;
    }
    return dyn;
}

static void sift_down(symbol *v, size_t i, size_t n) {
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) return;
        if (child + 1 < n && v[child + 1].addr > v[child].addr) child++;
        if (v[i].addr >= v[child].addr) return;
        symbol t = v[i];
        v[i] = v[child];
        v[child] = t;
        i = child;
    }
}

static void sort_symbols(symbol *v, size_t n) {
    for (size_t i = n / 2; i-- > 0;) sift_down(v, i, n);
    for (size_t end = n; end > 1; end--) {
        symbol t = v[0];
        v[0] = v[end - 1];
        v[end - 1] = t;
        sift_down(v, 0, end - 1);
    }
}

static void read_symbols(rec_elf_cache *c, object *o, const Elf64_Ehdr *eh) {
    const Elf64_Shdr *tab = symbol_table(o, eh);
    const Elf64_Shdr *strs = tab ? section(o, eh, tab->sh_link) : NULL;
    if (!tab || !strs || tab->sh_entsize != sizeof(Elf64_Sym) ||
        !in_file(o, tab->sh_offset, tab->sh_size) || !in_file(o, strs->sh_offset, strs->sh_size))
        return;
    size_t n = tab->sh_size / sizeof(Elf64_Sym);
    const Elf64_Sym *sym = (const Elf64_Sym *)(o->file + tab->sh_offset);
    const char *names = (const char *)(o->file + strs->sh_offset);
    o->syms = rec_scratch_alloc(c->scratch, (n ? n : 1) * sizeof *o->syms);
    if (!o->syms) return;
    for (size_t i = 0; i < n; i++) {
        unsigned type = ELF64_ST_TYPE(sym[i].st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym[i].st_shndx == SHN_UNDEF ||
            sym[i].st_size == 0 || sym[i].st_name >= strs->sh_size ||
            !memchr(names + sym[i].st_name, '\0', strs->sh_size - sym[i].st_name))
            continue;
        o->syms[o->nsyms++] =
            (symbol){ sym[i].st_value + o->bias, sym[i].st_size, names + sym[i].st_name };
    }
    sort_symbols(o->syms, o->nsyms);
}

static void load(rec_elf_cache *c, object *o, uintptr_t base) {
    o->tried = true;
    int fd = open(o->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size < MAX_FILE) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            o->file = p;
            o->file_size = (size_t)st.st_size;
        }
    }
    close(fd);
    if (!o->file) return;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)o->file;
    if (!valid_header(o, eh)) return;
    o->bias = load_bias(o, eh, base);
    read_symbols(c, o, eh);
}

/* --- lookups ------------------------------------------------------------------------------- */

static object *object_of(rec_elf_cache *c, const rec_mapping *m) {
    for (size_t i = 0; i < c->nobjects; i++)
        if (c->objects[i].path == m->path || strcmp(c->objects[i].path, m->path) == 0)
            return &c->objects[i];
    if (c->nobjects == MAX_OBJECTS) return NULL;
    object *o = &c->objects[c->nobjects++];
    memset(o, 0, sizeof *o);
    o->path = m->path;
    return o;
}

const char *rec_elf_symbol(rec_elf_cache *c, const rec_mapping *m, uintptr_t addr) {
    if (!c || !m || m->path[0] != '/') return NULL;
    object *o = object_of(c, m);
    if (!o) return NULL;
    if (!o->tried) load(c, o, m->base);
    size_t lo = 0, hi = o->nsyms; /* the last symbol starting at or below addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->syms[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return NULL;
    const symbol *s = &o->syms[lo - 1];
    return addr - s->addr < s->size ? s->name : NULL;
}
