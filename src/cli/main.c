/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/main.c — `cclscope`: global options and dispatch to subcommands.
 *
 *   cclscope [--quiet] [--progress] [--jobs N] COMMAND [ARGS...]
 *   cclscope help [COMMAND] | cclscope --help | cclscope --version
 *
 * Exit status: 0 ok, 1 findings/failure, 2 usage error (cli.h).
 */
#include <stdio.h>
#include <string.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli.h"

typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"check", cmd_check},       {"summary", cmd_summary}, {"merge", cmd_merge},
    {"perfetto", cmd_perfetto}, {"otf2", cmd_otf2},       {"hang", cmd_hang},
    {"view", cmd_view},         {"convert", cmd_convert}, {"load", cmd_load},
    {"sql", cmd_sql},
};

/* cclscope runs for seconds and allocates the same sizes again and again
 * (read buffers, chunks, per-file tables): keep freed memory for reuse
 * rather than hand it back to the kernel at once. With reading threads
 * (-j), glibc hands a thread's freed heap back with madvise, which
 * interrupts every CPU running the process to flush its TLB: 9 % of
 * summary -j 2's samples over 512 files (perf), 1.37 -> 1.02 CPU seconds
 * without it (docs/benchmarks.md). Peak memory is what is in use at once,
 * as before. */
static void keep_freed_memory(void) {
#ifdef __GLIBC__
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

int main(int argc, char **argv) {
  keep_freed_memory();
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      cli_globals.quiet = true;
      tr_format_notices = false;
    } else if (!strcmp(a, "--progress")) {
      cli_globals.progress = true;
    } else if (!strcmp(a, "--jobs") || !strcmp(a, "-j") ||
               !strncmp(a, "--jobs=", 7)) {
      const char *v = a[1] == '-' && a[6] == '=' ? a + 7 : NULL;
      if (!v && i + 1 < argc)
        v = argv[++i];
      if (!v)
        return usage_error(NULL, "%s needs a value", a);
      if (!cli_set_jobs(v))
        return usage_error(NULL,
                           "--jobs needs a number of threads from 1 to %d, "
                           "not '%s'",
                           CLI_MAX_JOBS, v);
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help_print(NULL, stdout);
      return EXIT_OK;
    } else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
      printf("cclscope %s\n", CCLSCOPE_VERSION);
      return EXIT_OK;
    } else {
      return usage_error(NULL, "unknown option '%s'", a);
    }
  }
  if (i >= argc) {
    help_print(NULL, stderr);
    return EXIT_USAGE;
  }
  const char *name = argv[i];
  if (!strcmp(name, "help")) {
    if (i + 1 >= argc) {
      help_print(NULL, stdout);
      return EXIT_OK;
    }
    if (!help_print(argv[i + 1], stdout))
      return usage_error(NULL, "no command '%s'", argv[i + 1]);
    return EXIT_OK;
  }
  for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
    if (!strcmp(name, commands[c].name))
      return commands[c].run(argc - i, argv + i);
  return usage_error(NULL, "no command '%s'", name);
}
