/* hosts.h — `--hosts FILE`: which host each rank ran on, for dumps that do not say.
 *
 * The recorder's dumps name their host (frtrace_identity); PyTorch's do not, but a launcher's
 * log or Slurm does: lines "RANK HOST", or "RANK: HOST" as `srun -l hostname` prints them.
 * Blank lines and lines starting with '#' are skipped. A line of another shape, a rank given
 * twice, or an unreadable file is an error naming the file and the line: a wrong mapping would
 * send someone to drain the wrong node. Reports prefer a dump's own host name to this file's.
 */
#ifndef FRTRACE_HOSTS_H
#define FRTRACE_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct fa_host {
    int64_t rank;
    char *host;
} fa_host;

typedef struct fa_hosts {
    fa_host *v; /* ascending rank */
    size_t n;
} fa_hosts;

/* 0, or -1 with err ("FILE:LINE: ..."). */
int fa_hosts_load(const char *path, fa_hosts *out, fr_error *err);
/* The host of `rank`, or NULL. */
const char *fa_hosts_find(const fa_hosts *h, int64_t rank);
void fa_hosts_free(fa_hosts *h);

#endif
