/* formats_glue.c — the one piece of formats/dump.c the recorder's writer path needs.
 *
 * formats/dump_write.c names entry states through fr_state_name(), which lives in
 * formats/dump.c next to the readers (and so next to cJSON, which the .so must not pull in).
 * The shim carries this copy of the three names instead; delete it when fr_state_name moves to
 * a reader-free file of formats/.
 */
#include "../formats/dump.h"

const char *fr_state_name(fr_state state)
{
    switch (state) {
    case FR_STATE_SCHEDULED:
        return "scheduled";
    case FR_STATE_STARTED:
        return "started";
    case FR_STATE_COMPLETED:
        return "completed";
    }
    return "unknown";
}
