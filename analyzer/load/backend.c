/* backend.c — backends by profiling-name prefix (see backend.h for what each one's states mean). */
#include "load/backend.h"

#include <string.h>

fa_backend fa_backend_of(const char *profiling_name) {
    return profiling_name && strncmp(profiling_name, "gloo:", 5) == 0 ? FA_BACKEND_GLOO
                                                                      : FA_BACKEND_OTHER;
}

bool fa_backend_records_p2p(fa_backend backend) { return backend != FA_BACKEND_GLOO; }

bool fa_backend_blocks_caller(fa_backend backend) { return backend == FA_BACKEND_GLOO; }
