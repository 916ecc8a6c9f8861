/* cli.c — the analysis command line: placeholder until the analyzer lands. */
#include <stdio.h>

#include "commands.h"

int analyze_main(int argc, char **argv) {
    fprintf(stderr, "frtrace: analysis not implemented yet\n");
    return 2;
}
