/* version.h — the version frtrace reports (--version, db.json's generator, the recorder's
 * dumps name their own). One definition, below every stage, so that a report can say it
 * without reaching up into the CLI. */
#ifndef FRTRACE_VERSION_H
#define FRTRACE_VERSION_H

#define FRTRACE_VERSION "0.1.0"

#endif
