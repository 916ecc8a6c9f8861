/* dir_walk.h — the bounded walk of a dump directory: which entries are named like dumps, and what
 * each one is.
 *
 * fa_dir_walk() visits DIR recursively and returns every entry whose name has the dump shape
 * (fa_dump_name_rank): regular files, and the odd ones — a FIFO, a device, a socket, a directory,
 * a dangling symbolic link — with a phrase saying what they are, so that the loader can call that
 * rank's dump unreadable instead of absent. The walk follows symbolic links, but never into a
 * directory it has already visited (by device and inode): each such loop is reported once, as a
 * note, and a directory tree with links to its own ancestors is walked once, in time linear in
 * its entries. Nothing is opened but directories (opendir cannot block); files are only stat'ed.
 *
 * Library code: nothing is printed; notes are "PATH: message" strings for the caller.
 */
#ifndef FRTRACE_DIR_WALK_H
#define FRTRACE_DIR_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Splits a file name into prefix and rank when it has the dump-name shape (PREFIX + decimal
 * rank, optionally ".json", ".pkl" or ".pickle"); used for inference and by tests. Returns the
 * rank, or -1 when the name does not fit. */
int64_t fa_dump_name_rank(const char *name, size_t *prefix_len);

typedef struct fa_dir_entry {
    char *path;
    const char *base; /* points into path */
    int64_t rank;
    size_t prefix_len;
    const char *odd; /* NULL for a regular file, else what it is ("a FIFO", ...); static text */
    bool is_dir;     /* odd because it is a directory (dropped when the rank has a file) */
} fa_dir_entry;

typedef struct fa_dir_list {
    fa_dir_entry *v;
    size_t n, cap;
    char **notes; /* loops not followed, directories too deep */
    size_t nnotes;
} fa_dir_list;

/* 0 on success; -1 with errno when DIR itself cannot be opened or memory ran out. */
int fa_dir_walk(const char *dir, fa_dir_list *w);
/* Frees the notes and the entry array (entries' paths too when free_paths). */
void fa_dir_walk_free(fa_dir_list *w, bool free_paths);

#endif
