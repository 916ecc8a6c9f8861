/* help.h — the commands' names and their help texts (help.c).
 *
 * `frtrace --help` and `frtrace help` print the general text; `frtrace help stats`,
 * `frtrace stats --help` and `frtrace --help stats` print the text of stats alone.
 */
#ifndef FRTRACE_HELP_H
#define FRTRACE_HELP_H

#include <stdbool.h>
#include <stdio.h>

#include "perf_cli.h"

/* Whether word names a command (stats, timeline, show, help); *command is set when it does. */
bool fa_cli_command_named(const char *word, fa_command *command);
/* The word that names command ("frtrace" for the analysis itself). */
const char *fa_cli_command_name(fa_command command);
/* The help of command (FA_CMD_ANALYZE and FA_CMD_HELP: the general text's and help's own). */
void fa_cli_help(FILE *out, fa_command command);

#endif
