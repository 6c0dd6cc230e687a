/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/cli_common.c — state and helpers every subcommand shares: the
 * global options, the usage-error message and the "nothing to convert"
 * check of the converting commands (cli.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "cli_options.h"
#include "read/ordered_reader.h"

cli_options cli_globals;

int usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "cclscope%s%s: ", cmd ? " " : "", cmd ? cmd : "");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'cclscope help%s%s'.\n", cmd ? " " : "",
          cmd ? cmd : "");
  return EXIT_USAGE;
}

void cli_global_option(int opt) {
  if (opt == OPT_QUIET) {
    cli_globals.quiet = true;
    tr_format_notices = false;
  } else if (opt == OPT_PROGRESS)
    cli_globals.progress = true;
}

bool cli_set_jobs(const char *text) {
  long long jobs;
  if (!cli_number(text, 1, CLI_MAX_JOBS, &jobs))
    return false;
  tr_jobs = (unsigned)jobs;
  return true;
}

bool nothing_to_convert(const char *cmd, const tr_inputs *in) {
  uint64_t invalid;
  if (!ord_inputs_empty(in, &invalid))
    return false;
  fprintf(stderr,
          "cclscope %s: nothing to convert: no records in the %zu input "
          "file%s (empty, not traces, or only blank or invalid lines); "
          "nothing written\n",
          cmd, in->n, in->n == 1 ? "" : "s");
  if (invalid > 0)
    fprintf(stderr,
            "cclscope %s: %" PRIu64 " blank or invalid line%s (run "
            "`cclscope check`)\n",
            cmd, invalid, invalid == 1 ? "" : "s");
  return true;
}
