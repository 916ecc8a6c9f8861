/* members.c — the shared member file of each communicator (see members.h). */
#include "members.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../formats/atomic_file.h"
#include "config.h"

/* The member folder "<dump dir>/.frtrace-comms" (the leading dot keeps it out of both analyzers'
 * view of the dump directory), opened one component at a time (a dump directory of any length)
 * and created first when `create`; -1 when it cannot be. */
static int member_dir(bool create) {
    const char *dir = rec_config_get()->dump_dir;
    int d = fr_dir_open(dir, strlen(dir), create);
    if (d < 0) return -1;
    if (create) mkdirat(d, ".frtrace-comms", 0777); /* EEXIST is fine */
    int m = openat(d, ".frtrace-comms", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(d);
    return m;
}

/* A communicator's name as a file name in the member folder: one component, never a way out. */
static bool file_name(const char *name) {
    return name[0] != '\0' && !strchr(name, '/') && strcmp(name, ".") != 0 &&
           strcmp(name, "..") != 0;
}

/* The communicator's member file in the member folder (a link planted there is not followed). */
static int member_file(const char *name, int flags, bool create) {
    if (!file_name(name)) return -1;
    int dir = member_dir(create);
    if (dir < 0) return -1;
    int fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC, 0644);
    close(dir);
    return fd;
}

static void encode(uint8_t out[8], uint64_t v) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t decode(const uint8_t in[8]) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | in[i];
    return v;
}

void rec_members_note(rec_comm *c, int64_t global_rank) {
    int32_t rank = atomic_load(&c->rank), nranks = atomic_load(&c->nranks);
    uint8_t slot[8];
    if (global_rank < 0 || rank < 0 || rank >= nranks || atomic_exchange(&c->members_noted, 1))
        return;
    int fd = member_file(c->pg_name, O_WRONLY | O_CREAT, true);
    if (fd < 0) return;
    encode(slot, (uint64_t)global_rank + 1);
    /* Each member writes only its own 8 bytes: concurrent writers never overlap. */
    if (pwrite(fd, slot, sizeof slot, (off_t)rank * 8) != (ssize_t)sizeof slot)
        atomic_store(&c->members_noted, 0);
    close(fd);
}

uint32_t rec_members_read(const rec_comm *c, int64_t *ranks, uint32_t cap) {
    int32_t nranks = atomic_load(&c->nranks);
    if (nranks <= 0 || (uint32_t)nranks > cap) return 0;
    int fd = member_file(c->pg_name, O_RDONLY, false);
    if (fd < 0) return 0;
    uint8_t buf[4096];
    uint32_t n = 0;
    while (n < (uint32_t)nranks) {
        size_t left = ((size_t)nranks - n) * 8, want = left < sizeof buf ? left : sizeof buf;
        ssize_t got = pread(fd, buf, want, (off_t)n * 8);
        if (got < 0 && errno == EINTR) continue;
        if (got < 8) break; /* a short file: the last members have not written yet */
        uint32_t k = 0;
        for (; k < (uint32_t)got / 8 && decode(&buf[8 * k]) != 0; k++)
            ranks[n + k] = (int64_t)(decode(&buf[8 * k]) - 1);
        n += k;
        if (k < (uint32_t)got / 8) break; /* a hole: that member has not written yet */
    }
    close(fd);
    return n == (uint32_t)nranks ? n : 0;
}
