/* mkdump.c — test tool: convert a Flight Recorder dump between versions and encodings.
 *
 *   mkdump [--version X.Y] [--json] [--root-memo yes|no] IN OUT
 *
 * Reads IN (pickle or JSON, any version; "-" is stdin) with fr_dump_decode and writes OUT
 * ("-" is stdout) with dump_write: a pickle in the byte layout of version X.Y (default: IN's own
 * version), or with --json PyTorch's JSON layout. Scenario tests write dumps as JSON from Python
 * and turn them into pickles with this tool, so that the project's own writer is exercised.
 * Exit status 0 on success, 2 on any error (message on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_write.h"
#include "pickle_write.h"

static int usage(void) {
    fprintf(stderr, "usage: mkdump [--version X.Y] [--json] [--root-memo yes|no] IN OUT\n");
    return 2;
}

static uint8_t *read_all(const char *path, size_t *len) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *grown = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    if (f != stdin) fclose(f);
    *len = n;
    return buf;
}

static int file_sink(void *ctx, const uint8_t *bytes, size_t len) {
    return fwrite(bytes, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

static int write_out(const fr_dump *d, const fr_write_options *o, bool json, FILE *out,
                     fr_error *err) {
    if (json) return fr_dump_write_json_file(d, o, out, err);
    pw_writer w;
    if (pw_init_alloc(&w, file_sink, out) != 0) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return -1;
    }
    int rc = fr_dump_write_pickle(d, o, &w, err);
    if (pw_finish(&w, NULL, NULL) != 0 && rc == 0) {
        snprintf(err->msg, sizeof err->msg, "write error");
        rc = -1;
    }
    return rc;
}

int main(int argc, char **argv) {
    fr_write_options o = { 0 };
    bool json = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc) {
            char dot;
            if (sscanf(argv[++i], "%d%c%d", &o.version_major, &dot, &o.version_minor) != 3 ||
                dot != '.')
                return usage();
        } else if (strcmp(argv[i], "--root-memo") == 0 && i + 1 < argc) {
            i++;
            o.root_memo = strcmp(argv[i], "yes") == 0 ? FR_ROOT_MEMO_YES : FR_ROOT_MEMO_NO;
        } else {
            return usage();
        }
    }
    if (argc - i != 2) return usage();
    const char *in_path = argv[i], *out_path = argv[i + 1];
    size_t len;
    uint8_t *bytes = read_all(in_path, &len);
    if (!bytes) {
        perror(in_path);
        return 2;
    }
    fr_error err = { { 0 } };
    fr_dump *d;
    int rc = fr_dump_decode(bytes, len, &d, &err);
    free(bytes);
    if (rc != 0) {
        fprintf(stderr, "mkdump: %s: %s\n", in_path, err.msg);
        return 2;
    }
    if (d->warning) fprintf(stderr, "mkdump: %s: warning: %s\n", in_path, d->warning);
    FILE *out = strcmp(out_path, "-") == 0 ? stdout : fopen(out_path, "wb");
    if (!out) {
        perror(out_path);
        fr_dump_free(d);
        return 2;
    }
    rc = write_out(d, &o, json, out, &err);
    if (out != stdout && fclose(out) != 0 && rc == 0) {
        snprintf(err.msg, sizeof err.msg, "write error");
        rc = -1;
    }
    fr_dump_free(d);
    if (rc != 0) {
        fprintf(stderr, "mkdump: %s: %s\n", out_path, err.msg);
        return 2;
    }
    return 0;
}
