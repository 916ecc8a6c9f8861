/* members.h — who is in each communicator: the global ranks of its members, learned through a
 * file that the members share.
 *
 * One process knows only its own place in a communicator. PyTorch's pg_config lists every
 * member's global rank, and torchfrtrace needs that list: without it a group has no expected
 * ranks, nothing is ever matched or blamed, and a coalesced group is never consumed (its
 * matcher loops for ever). So each member writes its global rank into slot comm_rank of
 * "<dump dir>/.frtrace-comms/<pg name>" (8 bytes each: global rank + 1, 0 = not yet known), and a
 * dump reads the file back. When the dump directory is not shared by every member, or a
 * member has not written yet, the list stays unknown and the dump says "[]" (the frtrace
 * analyzer rebuilds it from all dumps, as before).
 */
#ifndef FRTRACE_REC_MEMBERS_H
#define FRTRACE_REC_MEMBERS_H

#include <stdint.h>

#include "comms.h"

/* Writes this process's slot for the communicator, once its rank, size and the process's
 * global rank are known (a no-op before that, and after it has been written). */
void rec_members_note(rec_comm *c, int64_t global_rank);

/* Reads the member list of `c` into ranks[0..nranks) (global ranks in comm-rank order).
 * Returns the count, or 0 when some member is unknown or the list would not fit in `cap`.
 * Async-signal-safe (openat, pread, close). */
uint32_t rec_members_read(const rec_comm *c, int64_t *ranks, uint32_t cap);

#endif
