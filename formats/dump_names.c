/* dump_names.c — the names of dump enums, apart from the readers.
 *
 * The recorder's shared library writes dumps (dump_write.c) but must not link the readers in
 * dump.c, which pull in cJSON: the .so is linked with -z defs and may need nothing beyond libc.
 * The name tables both sides use therefore live here, in a file that depends on nothing but
 * dump.h's enums, and recorder/recorder.mk links this file into the .so.
 */
#include "dump.h"

const char *fr_state_name(fr_state state) {
    switch (state) {
    case FR_STATE_SCHEDULED: return "scheduled";
    case FR_STATE_STARTED: return "started";
    case FR_STATE_COMPLETED: return "completed";
    }
    return "unknown";
}
