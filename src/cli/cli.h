/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/cli.h — what the subcommands share: exit statuses, global
 * options, the command entry points and usage-error helpers. Defined in
 * cli_common.c, help.c (help_print) and each folder's cmd_*.c (cmd_*);
 * option parsing is cli_options.h.
 */
#ifndef CCLSCOPE_CLI_CLI_H
#define CCLSCOPE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "read/trace_reader.h"

enum {
  EXIT_OK = 0,       /* done, nothing to report */
  EXIT_FINDINGS = 1, /* findings (check) or a failure while working */
  EXIT_USAGE = 2     /* the command line was wrong */
};

typedef struct {
  bool quiet;    /* --quiet: no progress bar, no informational stderr */
  bool progress; /* --progress: progress bar even when not a terminal */
} cli_options;

/* The most threads --jobs may ask for. */
#define CLI_MAX_JOBS 1024

extern cli_options cli_globals;

/* Each subcommand gets argv[0] = its own name. */
int cmd_check(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_perfetto(int argc, char **argv);
int cmd_otf2(int argc, char **argv);
int cmd_hang(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_sql(int argc, char **argv);

/* help.c: print the help of `cmd` (NULL: the overview) to `out`; false
 * if there is no such command. */
bool help_print(const char *cmd, FILE *out);
/* "cclscope CMD: <message>" + a hint to `cclscope help CMD`; returns 2. */
int usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* merge, perfetto, otf2, view: when no input holds a record (files empty,
 * or only blank or invalid lines), says so on stderr and returns true; the
 * command then exits EXIT_FINDINGS without creating its output. */
bool nothing_to_convert(const char *cmd, const tr_inputs *in);
/* -q/--quiet and --progress, which every command accepts before or after
 * its name: set the global flag (cli_options.c reads them). */
void cli_global_option(int opt);
/* -j/--jobs N (before or after the command): how many threads read and
 * decode the traces (tr_jobs, read/read_ahead.h). False when `text` is not
 * a number from 1 to CLI_MAX_JOBS. */
bool cli_set_jobs(const char *text);

/* Options every subcommand accepts (cli_options.c), as getopt's `val`;
 * a command's own options that have no letter count from
 * OPT_FIRST_PRIVATE. */
enum {
  OPT_HELP = 'h',
  OPT_QUIET = 'q',
  OPT_JOBS = 'j',
  OPT_PROGRESS = 0x100,
  OPT_FIRST_PRIVATE = 0x200
};

#endif
