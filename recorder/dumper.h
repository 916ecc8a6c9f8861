/* dumper.h — writing this process's dump file: ordinary (dumper thread) and fatal-signal dumps.
 *
 * A dump is a PyTorch Flight Recorder file (2.10 pickle layout, or JSON with
 * FRTRACE_FORMAT=json) named FRTRACE_DUMP_DIR/FRTRACE_DUMP_PREFIX<global rank>, written through
 * formats/atomic_file.h: an exclusive temporary file of a random name, renamed into place. The
 * recorder fills an fr_dump from preallocated memory and hands it to formats/dump_write; the fatal
 * path uses a workspace of its own and only async-signal-safe calls (openat, write, renameat,
 * clock_gettime; no malloc, no stdio, no locks).
 */
#ifndef FRTRACE_REC_DUMPER_H
#define FRTRACE_REC_DUMPER_H

#include <stddef.h>
#include <stdint.h>

/* Allocates both workspaces for a ring of `capacity` entries (at activation). */
int rec_dump_prepare(uint32_t capacity);
/* Writes the dump; `trigger` is "timeout", "signal", "trigger_file", "exit", ...
 * Serialized by a lock; returns 0 or -1. Not for signal handlers. */
int rec_dump_write(const char *trigger);
/* The emergency dump from inside a fatal-signal handler (pickle). At most once per process. */
void rec_dump_fatal(int sig);
/* The profiling name of a recorded op ("nccl:all_reduce"), for messages. */
const char *rec_dump_op_name(unsigned op);
/* In the child of a fork: the dump lock as new (the parent's dumper thread may have held it) and
 * the fatal dump not yet taken. */
void rec_dump_forget(void);

/* Async-signal-safe formatting helpers. Each returns the length written (NUL-terminated). */
size_t rec_fmt_u64(char *out, uint64_t v);
size_t rec_fmt_i64(char *out, int64_t v);
void rec_format_version(char *out, size_t cap, int major, int minor, int patch);

#endif
