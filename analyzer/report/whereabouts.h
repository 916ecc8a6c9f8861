/* whereabouts.h — where each rank was when it dumped: its host and GPU, and what its threads
 * were doing (the recorder's frtrace_identity and frtrace_stacks keys, and --hosts).
 *
 * The verdict names the rank that broke the job; this answers the on-call engineer's next two
 * questions: which machine to drain, and what the rank is doing. It decides nothing: it picks,
 * for each rank, the thread that matters (the one that made the rank's newest NCCL call, else
 * the main thread), trims its native frames to what the Python frames do not already say (the
 * frames above the interpreter's loop) and to where the program's own code starts (not libc's
 * start-up frames), and groups the ranks whose threads stand in the same frames. The reports
 * (report_whereabouts.c) and `frtrace stacks` (folded.c) present that.
 */
#ifndef FRTRACE_WHEREABOUTS_H
#define FRTRACE_WHEREABOUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "util/ranks.h"

/* "node-17, GPU 3 (0000:5A:00.0)" from the dump, "node-17" from --hosts, or NULL when neither
 * says; raw input text (show it through safe_text.h). malloc'd. */
char *fa_where_place(const fa_input *in, int64_t rank);
/* Whether any loaded dump has an identity or stacks, or --hosts was given. */
bool fa_where_known(const fa_input *in);

/* The thread of a dump that matters, or NULL when the dump has no stacks. */
const fa_thread *fa_where_thread(const fa_dump *d);
/* Of a thread's native frames (innermost first), how many to show: those above the
 * interpreter's loop when it has Python frames, else all but the start-up frames at the root. */
size_t fa_where_native_shown(const fa_store *s, const fa_thread *t);
/* "in load_batch at job.py:63 (in time_sleep)": the innermost frame, raw text. malloc'd. */
char *fa_where_summary(const fa_store *s, const fa_thread *t);
/* A frame's file or object without its directories. */
const char *fa_where_basename(const char *path);

/* Ranks whose threads that matter stand in the same frames. */
typedef struct fa_where_group {
    fa_ranks ranks;      /* ascending */
    const fa_dump *dump; /* the first rank's dump and thread: the group's frames */
    const fa_thread *thread;
    char *summary;
} fa_where_group;

typedef struct fa_where_groups {
    fa_where_group *v; /* in order of their first rank */
    size_t n;
} fa_where_groups;

/* Groups the ranks with stacks (only `selected` ones when given). 0, or -1 out of memory. */
int fa_where_group_ranks(const fa_input *in, const int64_t *selected, size_t nselected,
                         fa_where_groups *out);
void fa_where_groups_free(fa_where_groups *g);

#endif
