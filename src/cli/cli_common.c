/*
 * src/cli/cli_common.c — state and helpers every subcommand shares: the
 * global options and the usage-error message (cli.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

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
  if (opt == OPT_QUIET)
    cli_globals.quiet = true;
  else if (opt == OPT_PROGRESS)
    cli_globals.progress = true;
}
