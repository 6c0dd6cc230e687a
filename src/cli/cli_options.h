/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/cli_options.h — the command line of one subcommand, read option by
 * option. What every command does the same way is done here once:
 *
 *  - --help/-h prints the command's help (help.c) and ends the command;
 *  - -q/--quiet, --progress and -j/--jobs N set the global flags (cli.h);
 *  - -o/--output FILE for the commands that write one (then required);
 *  - --memory-mb N for the commands that sort (ordered_reader.h);
 *  - an unknown option, an option without its value, a missing -o and no
 *    inputs are usage errors with the same words in every command;
 *  - numbers and --memory-mb values are read strictly (the whole text).
 *
 * The command lists only its own options and handles them in a switch:
 *
 *   cli_parser p;
 *   cli_parse_begin(&p, &merge_command_line, argc, argv);
 *   int o;
 *   while ((o = cli_parse_next(&p)) > 0)
 *     switch (o) { case 'r': ... p.value ... }
 *   if (o == CLI_PARSE_EXIT)
 *     return p.status;
 *   ... p.output, p.memory_bytes, p.inputs[0 .. p.ninputs) ...
 */
#ifndef CCLSCOPE_CLI_CLI_OPTIONS_H
#define CCLSCOPE_CLI_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "read/trace_reader.h"

/* One option of a command: --name, with a value or not. `id` is what
 * cli_parse_next returns for it: a letter, or OPT_FIRST_PRIVATE + n (cli.h);
 * it must not be 'h', 'q' or 'o' (those are the common options). */
typedef struct {
  const char *name;
  bool takes_value;
  int id;
} cli_option;

/* What a command's line looks like. */
typedef struct {
  const char *cmd;                /* "merge": messages and its help */
  const cli_option *options;      /* its own, ended by {NULL, false, 0} */
  const char *output_usage;       /* "-o FILE": -o is required; NULL: no -o */
  const char *output_needs_value; /* NULL: "-o needs a file name" */
  const char *inputs_missing;     /* NULL: "give a trace folder or files" */
  bool memory_mb;                 /* takes --memory-mb N */
} cli_command_line;

/* What --memory-mb is when not given: 256 MiB. */
#define CLI_DEFAULT_MEMORY_BYTES ((size_t)256 << 20)

/* The command's own options plus --output, --memory-mb, --help, --quiet,
 * --progress, --jobs and the end marker. */
enum { CLI_MAX_OPTIONS = 12 };

typedef struct {
  const cli_command_line *line;
  int argc;
  char **argv;
  struct option longs[CLI_MAX_OPTIONS + 7];
  const char *shorts;    /* getopt's letters */
  bool too_many_options; /* more than CLI_MAX_OPTIONS: a programming error */
  /* results */
  const char *value;   /* the current option's value (when it takes one) */
  const char *output;  /* -o/--output; NULL when not given */
  size_t memory_bytes; /* --memory-mb, in bytes */
  int status;          /* after CLI_PARSE_EXIT: the command's exit status */
  int ninputs;         /* after CLI_PARSE_DONE: the operands */
  char **inputs;
} cli_parser;

enum {
  CLI_PARSE_DONE = 0,  /* options read, -o given if required, inputs given */
  CLI_PARSE_EXIT = -1, /* --help printed or a usage error said: return
                          p->status */
};

void cli_parse_begin(cli_parser *p, const cli_command_line *line, int argc,
                     char **argv);
/* The id of the next option of the command's own (its value in p->value),
 * CLI_PARSE_DONE or CLI_PARSE_EXIT. */
int cli_parse_next(cli_parser *p);

/* `text` as a whole decimal number within [min, max]; false otherwise. */
bool cli_number(const char *text, long long min, long long max,
                long long *value);
/* A --memory-mb value in bytes; false if invalid. */
bool parse_memory_mb(const char *text, size_t *bytes);
/* Whether `output` is an existing file that is also one of the inputs
 * (writing it would destroy an input); then says so as a usage error of
 * `cmd`. "-" (stdout) is never an input. */
bool output_is_an_input(const char *cmd, const char *output,
                        const tr_inputs *in);

#endif
