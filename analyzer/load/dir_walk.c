/* dir_walk.c — the bounded directory walk of dir_walk.h.
 *
 * Depth-first with recursion bounded by MAX_DEPTH (each level holds one open directory). Every
 * directory entered is first entered into a set of (device, inode) pairs — an open-addressing
 * table that doubles at half load — so a directory reached a second time, through a symbolic
 * link or a bind mount, is reported once as a note and not walked again: the walk costs one
 * stat per entry of each directory once, whatever links the tree holds. Entries are lstat'ed;
 * a link is stat'ed once more to learn what it points to (a dangling one is odd, not skipped).
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "load/load.h"
#include "grow.h"
#include "load/dir_walk.h"

static const char *const dump_suffixes[] = { ".json", ".pkl", ".pickle", "" };

int64_t fa_dump_name_rank(const char *name, size_t *prefix_len) {
    size_t len = strlen(name);
    for (size_t s = 0; s < sizeof dump_suffixes / sizeof *dump_suffixes; s++) {
        size_t sl = strlen(dump_suffixes[s]);
        if (len <= sl || strcmp(name + len - sl, dump_suffixes[s]) != 0) continue;
        size_t end = len - sl, start = end;
        while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') start--;
        if (start == end || end - start > 9) continue;
        if (prefix_len) *prefix_len = start;
        return strtoll(name + start, NULL, 10);
    }
    return -1;
}

enum { MAX_DEPTH = 64 };

typedef struct dir_id {
    dev_t dev;
    ino_t ino;
    bool used;
} dir_id;

typedef struct visited {
    dir_id *v;
    size_t cap, n;
} visited;

static size_t slot_of(const visited *s, dev_t dev, ino_t ino) {
    uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xff51afd7ed558ccdull);
    return (size_t)(h ^ (h >> 29)) & (s->cap - 1);
}

static bool visited_grow(visited *s) {
    visited bigger = { calloc(s->cap ? s->cap * 2 : 64, sizeof *s->v), s->cap ? s->cap * 2 : 64,
                       0 };
    if (!bigger.v) return false;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->v[i].used) continue;
        size_t at = slot_of(&bigger, s->v[i].dev, s->v[i].ino);
        while (bigger.v[at].used) at = (at + 1) & (bigger.cap - 1);
        bigger.v[at] = s->v[i];
        bigger.n++;
    }
    free(s->v);
    *s = bigger;
    return true;
}

/* 1 when (dev, ino) was new and is now in the set, 0 when seen before, -1 out of memory. */
static int visited_add(visited *s, dev_t dev, ino_t ino) {
    if (2 * (s->n + 1) > s->cap && !visited_grow(s)) return -1;
    size_t at = slot_of(s, dev, ino);
    for (; s->v[at].used; at = (at + 1) & (s->cap - 1))
        if (s->v[at].dev == dev && s->v[at].ino == ino) return 0;
    s->v[at] = (dir_id){ dev, ino, true };
    s->n++;
    return 1;
}

static int add_note(fa_dir_list *w, const char *path, const char *msg) {
    char **notes = realloc(w->notes, (w->nnotes + 1) * sizeof *notes);
    if (!notes) return -1;
    w->notes = notes;
    char *s = NULL;
    if (asprintf(&s, "%s: %s", path, msg) < 0) return -1;
    w->notes[w->nnotes++] = s;
    return 0;
}

/* Keeps path when its base name has the dump shape; `odd` says what it is unless regular. */
static int add_entry(fa_dir_list *w, const char *path, size_t base_at, const char *odd,
                     bool is_dir) {
    size_t prefix_len;
    int64_t rank = fa_dump_name_rank(path + base_at, &prefix_len);
    if (rank < 0) return 0;
    if (fr_grow((void **)&w->v, &w->cap, w->n + 1, sizeof *w->v, 64)) return -1;
    char *copy = strdup(path);
    if (!copy) return -1;
    w->v[w->n++] = (fa_dir_entry){ copy, copy + base_at, rank, prefix_len, odd, is_dir };
    return 0;
}

/* What a file that is neither regular nor a directory is, for the user. */
static const char *odd_kind(mode_t mode, bool link) {
    if (S_ISFIFO(mode)) return link ? "a symbolic link to a FIFO" : "a FIFO";
    if (S_ISCHR(mode)) return link ? "a symbolic link to a character device" : "a character device";
    if (S_ISBLK(mode)) return link ? "a symbolic link to a block device" : "a block device";
    if (S_ISSOCK(mode)) return link ? "a symbolic link to a socket" : "a socket";
    return link ? "a symbolic link to something that is not a regular file" : "not a regular file";
}

static int walk_dir(fa_dir_list *w, visited *seen, const char *dir, int depth);

/* One directory entry: a file to keep, a directory to enter, or something odd to report. */
static int visit(fa_dir_list *w, visited *seen, const char *path, size_t base_at, int depth) {
    struct stat st;
    if (lstat(path, &st) != 0) return 0; /* gone since readdir */
    bool link = S_ISLNK(st.st_mode);
    if (link && stat(path, &st) != 0)
        return add_entry(w, path, base_at, "a dangling symbolic link", false);
    if (S_ISREG(st.st_mode)) return add_entry(w, path, base_at, NULL, false);
    if (!S_ISDIR(st.st_mode)) return add_entry(w, path, base_at, odd_kind(st.st_mode, link), false);
    if (add_entry(w, path, base_at, link ? "a symbolic link to a directory" : "a directory", true))
        return -1;
    int fresh = visited_add(seen, st.st_dev, st.st_ino);
    if (fresh < 0) return -1;
    if (!fresh)
        return add_note(w, path,
                        link
                            ? "a symbolic link to a directory already walked (a loop); not followed"
                            : "a directory already walked (a bind mount?); not walked again");
    if (depth + 1 > MAX_DEPTH)
        return add_note(w, path, "more than 64 directories deep; not walked");
    return walk_dir(w, seen, path, depth + 1);
}

static int walk_dir(fa_dir_list *w, visited *seen, const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d) return depth == 0 ? -1 : add_note(w, dir, strerror(errno));
    size_t dl = strlen(dir);
    const char *sep = (dl && dir[dl - 1] == '/') ? "" : "/";
    struct dirent *ent;
    int rc = 0;
    while (rc == 0 && (ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.') continue; /* ., .., and hidden temporaries of atomic writers */
        char *path = NULL;
        if (asprintf(&path, "%s%s%s", dir, sep, ent->d_name) < 0) {
            rc = -1;
            break;
        }
        rc = visit(w, seen, path, strlen(path) - strlen(ent->d_name), depth);
        free(path);
    }
    closedir(d);
    return rc;
}

int fa_dir_walk(const char *dir, fa_dir_list *w) {
    memset(w, 0, sizeof *w);
    visited seen = { 0 };
    struct stat st;
    if (stat(dir, &st) != 0) return -1;
    int rc = visited_add(&seen, st.st_dev, st.st_ino) < 0 ? -1 : walk_dir(w, &seen, dir, 0);
    int saved = errno;
    free(seen.v);
    errno = saved;
    return rc;
}

void fa_dir_walk_free(fa_dir_list *w, bool free_paths) {
    for (size_t i = 0; free_paths && i < w->n; i++) free(w->v[i].path);
    for (size_t i = 0; i < w->nnotes; i++) free(w->notes[i]);
    free(w->v);
    free(w->notes);
    memset(w, 0, sizeof *w);
}
