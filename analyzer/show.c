/* show.c — `frtrace show`: placeholder until the reader lands. */
#include <stdio.h>

#include "commands.h"

int show_main(int argc, char **argv) {
    fprintf(stderr, "frtrace show: not implemented yet\n");
    return 2;
}
