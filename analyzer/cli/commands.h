/* commands.h — the subcommands of the frtrace CLI, each in its own file.
 *
 * main.c only picks one: `frtrace show ...` runs show_main (show.c); anything else is the
 * analysis, analyze_main (cli.c). Each returns the process exit status (0, 1 or 2, as the
 * man page frtrace.1 defines them) and prints its own messages.
 */
#ifndef FRTRACE_COMMANDS_H
#define FRTRACE_COMMANDS_H

#include "util/version.h"

int show_main(int argc, char **argv);    /* argv[0] is "show" */
int analyze_main(int argc, char **argv); /* argv[0] is the program name */
int stats_main(int argc, char **argv);   /* argv[0] is "stats" (cli.c, perf_cli.c) */
int stacks_main(int argc, char **argv);  /* argv[0] is "stacks" (cli.c, report/folded.c) */
int timeline_main(int argc,
                  char **argv); /* argv[0] is "timeline" (cli.c, perf_cli.c, timeline.c) */

#endif
