/* job_folders.h — a directory that holds the dumps of several jobs, told apart before decoding.
 *
 * A parent folder of runs (runs/job1/rank_0, runs/job2/rank_0, ...) is not one job: the same
 * rank's dump in two folders would be "a second dump for rank 0" hundreds of times, and the
 * dumps that happen to be read first would be analyzed as one mixed job. Before anything is
 * decoded, the loader asks here whether some rank has regular files in more than one folder;
 * then the user is told, in one line, how many jobs the folder holds and how to pick one. A
 * job whose ranks are spread over folders (node0/rank_0..7, node1/rank_8..15) has each rank
 * in one folder, and is one job.
 */
#ifndef FRTRACE_JOB_FOLDERS_H
#define FRTRACE_JOB_FOLDERS_H

#include <stddef.h>

#include "dir_walk.h"

/* files: n entries sorted by rank (the loader's order). NULL when every rank's regular files
 * lie in one folder; else a malloc'd message: "DIR holds the dumps of N jobs (...): analyze one
 * at a time, e.g. frtrace DIR/FOLDER", naming a few of the folders. */
char *fa_job_folders_message(const fa_dir_entry *files, size_t n, const char *dir);

#endif
