/* show.c — `frtrace show [--pretty] FILE...`: each dump's value tree as one JSON document.
 *
 * For every file: read it whole (with a size check), tell JSON from pickle by content (after
 * optional whitespace, '{' or '[' is JSON; a pickle never starts with either), read it into a
 * value tree and print that tree as Python's json.dumps(pickle.load(f)) would (json_write.h).
 * It prints the raw value tree, not the typed dump: whatever keys a version has are shown.
 *
 * A file that cannot be read is reported on stderr as "frtrace show: PATH: message" and the
 * others are still shown; the exit status is then 2, else 0. The printed size is bounded
 * (64 x file size + 16 MiB of weight) so that memo tricks cannot make a small file print forever.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "json_read.h"
#include "json_write.h"
#include "pickle_read.h"
#include "value.h"

#define MAX_FILE_SIZE ((uint64_t)64 << 30)

static void usage(FILE *to) {
    fprintf(to,
            "usage: frtrace show [--pretty] FILE...\n"
            "\n"
            "Decode Flight Recorder dumps (pickle, protocols 0-5, or JSON; detected by content)\n"
            "and print each as one JSON document, as Python's json.dumps(pickle.load(f)) would.\n"
            "Pickle opcodes that would run code are refused, never executed.\n"
            "\n"
            "  --pretty    indent by two spaces (json.dumps(value, indent=2))\n"
            "  -h, --help  show this help\n"
            "\n"
            "Exit status: 0 every file shown, 2 some file could not be read (see stderr).\n");
}

/* Reads a whole file into *buf (malloc'd, NUL-appended). 0, or -1 with err. */
static int read_file(const char *path, uint8_t **buf, size_t *len, fr_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err->msg, sizeof err->msg, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        snprintf(err->msg, sizeof err->msg, "is a directory");
        return -1;
    }
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= MAX_FILE_SIZE
                     ? (size_t)st.st_size + 1
                     : 65536;
    size_t n = 0;
    uint8_t *data = NULL;
    int rc = 0;
    for (;;) {
        if (n + 1 >= cap || !data) {
            if (data) cap *= 2;
            uint8_t *bigger = realloc(data, cap);
            if (!bigger) {
                snprintf(err->msg, sizeof err->msg, "out of memory reading %zu bytes", cap);
                rc = -1;
                break;
            }
            data = bigger;
        }
        size_t got = fread(data + n, 1, cap - 1 - n, f);
        n += got;
        if ((uint64_t)n > MAX_FILE_SIZE) {
            snprintf(err->msg, sizeof err->msg, "file larger than 64 GiB");
            rc = -1;
            break;
        }
        if (got == 0) {
            if (ferror(f)) {
                snprintf(err->msg, sizeof err->msg, "read error: %s", strerror(errno));
                rc = -1;
            }
            break;
        }
    }
    fclose(f);
    if (rc == 0 && n == 0) {
        snprintf(err->msg, sizeof err->msg, "empty file");
        rc = -1;
    }
    if (rc) {
        free(data);
        return -1;
    }
    data[n] = '\0';
    *buf = data;
    *len = n;
    return 0;
}

static bool looks_like_json(const uint8_t *buf, size_t len) {
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
    return i < len && (buf[i] == '{' || buf[i] == '[');
}

/* Decodes and prints one file; 0, or -1 with err. */
static int show_file(const char *path, bool pretty, fr_error *err) {
    uint8_t *buf;
    size_t len;
    if (read_file(path, &buf, &len, err)) return -1;
    fv_arena *arena = fv_arena_new();
    int rc = -1;
    fv *root = NULL;
    if (!arena) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
    } else if (looks_like_json(buf, len)) {
        rc = json_read((const char *)buf, len, arena, &root, err);
    } else {
        pr_options opts = {0};
        rc = pickle_read(buf, len, arena, &opts, &root, err);
    }
    if (rc == 0) {
        uint64_t max_weight = 64 * (uint64_t)len + ((uint64_t)16 << 20);
        rc = fv_write_json(stdout, root, pretty, max_weight, err);
        if (rc == 0) putchar('\n');
    }
    fv_arena_free(arena);
    free(buf);
    return rc;
}

int show_main(int argc, char **argv) {
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
            fprintf(stderr, "frtrace show: unknown option %s\n", a);
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
    for (int i = first; i < argc; i++) {
        fr_error err = {{0}};
        if (show_file(argv[i], pretty, &err)) {
            fflush(stdout);
            fprintf(stderr, "frtrace show: %s: %s\n", argv[i], err.msg);
            status = 2;
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "frtrace show: error writing output: %s\n", strerror(errno));
        status = 2;
    }
    return status;
}
