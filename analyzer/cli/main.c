/* main.c — the frtrace command line: picks the subcommand, nothing else.
 *
 * `frtrace show [--pretty] FILE...` decodes dumps (show.c); `frtrace stats` and `frtrace timeline`
 * (cli.c with perf_cli.c), `frtrace stacks` (cli.c with report/folded.c) and every other form
 * analyze a dump directory (cli.c), which also finds a command word that comes after options
 * (frtrace -v stats DIR) and `frtrace help`. No analysis logic lives here.
 */
#include <string.h>

#include "commands.h"

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "show") == 0) return show_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "stats") == 0) return stats_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "timeline") == 0) return timeline_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "stacks") == 0) return stacks_main(argc - 1, argv + 1);
    return analyze_main(argc, argv);
}
