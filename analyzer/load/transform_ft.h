/* transform_ft.h — torchfrtrace's --transform-ft for torchft jobs (see transform_ft.c). */
#ifndef FRTRACE_TRANSFORM_FT_H
#define FRTRACE_TRANSFORM_FT_H

#include <stdint.h>

#include "load/load.h"

/* Rewrites every dump's default_pg ranks from replica-local to global: r + (rank / gws) * gws.
 * 0, or -1 with `err` when a rank would overflow. group_world_size must be positive. */
int fa_transform_ft(fa_input *in, int64_t group_world_size, fr_error *err);

#endif
