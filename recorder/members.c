/* members.c — the shared member file of each communicator (see members.h). */
#include "members.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

/* "<dump dir>/.frtrace-comms" and, with `name`, the file of that communicator. The leading
 * dot keeps it out of both analyzers' view of the dump directory. */
static int member_path(char *out, size_t cap, const char *name) {
    const char *dir = rec_config_get()->dump_dir;
    size_t n = strlen(dir), m = name ? strlen(name) : 0;
    if (n + m + 32 > cap) return -1;
    memcpy(out, dir, n);
    memcpy(out + n, "/.frtrace-comms", 16);
    if (name != NULL) {
        out[n + 15] = '/';
        memcpy(out + n + 16, name, m + 1);
    }
    return 0;
}

/* Creates the dump directory (and its parents) and the member folder; EEXIST is fine. */
static void make_member_dir(void) {
    char path[640];
    if (member_path(path, sizeof path, NULL) != 0) return;
    for (size_t i = 1; path[i] != '\0'; i++) {
        if (path[i] != '/') continue;
        path[i] = '\0';
        mkdir(path, 0777);
        path[i] = '/';
    }
    mkdir(path, 0777);
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
    char path[640];
    uint8_t slot[8];
    if (global_rank < 0 || rank < 0 || rank >= nranks || atomic_exchange(&c->members_noted, 1))
        return;
    make_member_dir();
    if (member_path(path, sizeof path, c->pg_name) != 0) return;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    encode(slot, (uint64_t)global_rank + 1);
    /* Each member writes only its own 8 bytes: concurrent writers never overlap. */
    if (pwrite(fd, slot, sizeof slot, (off_t)rank * 8) != (ssize_t)sizeof slot)
        atomic_store(&c->members_noted, 0);
    close(fd);
}

uint32_t rec_members_read(const rec_comm *c, int64_t *ranks, uint32_t cap) {
    int32_t nranks = atomic_load(&c->nranks);
    char path[640];
    if (nranks <= 0 || (uint32_t)nranks > cap || member_path(path, sizeof path, c->pg_name) != 0)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
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
