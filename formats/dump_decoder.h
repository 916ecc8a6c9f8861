/* dump_decoder.h — decoding many dump files in a row, one thread, with reused scratch memory.
 *
 * fr_dump_decode() sets up and tears down its working memory for every file: the arena the
 * pickle's value tree is built in (megabytes for a 2 000-entry dump) and the decoder's caches.
 * A job of 16 384 ranks decodes 16 384 files per analysis, and fresh memory costs a page fault
 * per 4 KiB on first touch — a sizeable share of the decoding time. An fr_decoder keeps that
 * memory between files: a thread that decodes file after file (the analyzer's load workers)
 * makes one, decodes each file with it, and frees it at the end. It also keeps the parse of
 * the last few long "ranks" texts of pg_config (the default group's is in every file) and
 * reuses it for a byte-identical text. The dumps it returns are independent of it (each owns
 * its arena, freed by fr_dump_free, and has its own copy of every rank list) and outlive it.
 *
 * An fr_decoder is not thread-safe: one per thread. Results and errors are exactly those of
 * fr_dump_decode(), which is a one-file fr_decoder.
 */
#ifndef FRTRACE_DUMP_DECODER_H
#define FRTRACE_DUMP_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump.h"

typedef struct fr_decoder fr_decoder;

/* NULL when out of memory. */
fr_decoder *fr_decoder_new(void);
void fr_decoder_free(fr_decoder *dec);
/* As fr_dump_decode(). */
int fr_decoder_decode(fr_decoder *dec, const uint8_t *bytes, size_t len, fr_dump **out,
                      fr_error *err);
/* Pickles and JSON dumps are first tried on a direct path that skips the value tree
 * (dump_pickle_fast.c, dump_json_fast.c) and decoded the generic way whenever it declines; the
 * result is the same either way. Turning the direct paths off (on by default) is for tests and
 * benchmarks that compare the two. */
void fr_decoder_use_fast_path(fr_decoder *dec, bool on);
/* How many of the files this decoder decoded took a direct path. */
uint64_t fr_decoder_fast_count(const fr_decoder *dec);

#endif
