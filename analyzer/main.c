/* main.c — the frtrace command line: picks the subcommand, nothing else.
 *
 * `frtrace show [--pretty] FILE...` decodes dumps (show.c); every other form analyzes a dump
 * directory (cli.c). No analysis logic lives here.
 */
#include <string.h>

#include "commands.h"

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "show") == 0) return show_main(argc - 1, argv + 1);
    return analyze_main(argc, argv);
}
