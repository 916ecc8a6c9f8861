/* show.c — `frtrace show [--pretty] FILE...`: each dump's value tree as one JSON document.
 *
 * For every file: read it whole (with a size check), tell JSON from pickle by content (after
 * optional whitespace, '{' or '[' is JSON; a pickle never starts with either), read it into a
 * value tree and print that tree as Python's json.dumps(pickle.load(f)) would (json_write.h).
 * It prints the raw value tree, not the typed dump: whatever keys a version has are shown.
 *
 * A file that cannot be read is reported on stderr as "frtrace show: PATH: message" (shown, never
 * obeyed: safe_text.h) and the
 * others are still shown; the exit status is then 2, else 0. The printed size is bounded
 * (64 x file size + 16 MiB of weight) so that memo tricks cannot make a small file print forever.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "load/file_read.h"
#include "cli/help.h"
#include "json_read.h"
#include "json_salvage.h"
#include "json_write.h"
#include "pickle_read.h"
#include "safe_text.h"
#include "value.h"

static void usage(FILE *to) { fa_cli_help(to, FA_CMD_SHOW); }

static bool looks_like_json(const uint8_t *buf, size_t len) {
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
    return i < len && (buf[i] == '{' || buf[i] == '[');
}

/* Decodes and prints one file; 0, or -1 with err. */
static int show_file(const char *path, bool pretty, fa_file_buffer *file, fr_error *err) {
    long read = fa_read_whole_file(path, file, err);
    if (read < 0) return -1;
    const uint8_t *buf = file->bytes;
    size_t len = (size_t)read;
    fv_arena *arena = fv_arena_new();
    int rc = -1;
    fv *root = NULL;
    if (!arena) {
        fr_fail(err, "out of memory");
    } else if (looks_like_json(buf, len)) {
        rc = json_read((const char *)buf, len, arena, &root, err);
        json_cut cut;
        if (rc != 0 && json_truncation_cut((const char *)buf, len, JSON_READ_MAX_DEPTH, &cut)) {
            free(cut.closers); /* show prints whole documents only: say why this is not one */
            fr_fail(err, "truncated JSON at byte %zu", len);
        }
    } else {
        pr_options opts = { 0 };
        rc = pickle_read(buf, len, arena, &opts, &root, err);
    }
    if (rc == 0) {
        uint64_t max_weight = 64 * (uint64_t)len + ((uint64_t)16 << 20);
        rc = fv_write_json(stdout, root, pretty, max_weight, err);
        if (rc == 0) putchar('\n');
    }
    fv_arena_free(arena);
    return rc;
}

int show_main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN); /* a closed pipe on stdout: EPIPE, reported, exit 2 */
    bool pretty = false;
    int first = 1;
    for (; first < argc; first++) {
        const char *a = argv[first];
        if (strcmp(a, "--") == 0) {
            first++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') break;
        if (strcmp(a, "--pretty") == 0) {
            pretty = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fr_text_printf(stderr, "frtrace show: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (first >= argc) {
        fprintf(stderr, "frtrace show: no FILE given\n");
        usage(stderr);
        return 2;
    }
    int status = 0;
    fa_file_buffer file = { 0 };
    for (int i = first; i < argc; i++) {
        fr_error err = { { 0 } };
        if (show_file(argv[i], pretty, &file, &err)) {
            fflush(stdout);
            fr_text_printf(stderr, "frtrace show: %s: %s\n", argv[i], err.msg);
            status = 2;
        }
    }
    fa_file_buffer_free(&file);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "frtrace show: error writing output: %s\n", strerror(errno));
        status = 2;
    }
    return status;
}
