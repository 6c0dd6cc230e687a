/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/cli_options.c — reading a subcommand's command line (see
 * cli_options.h): getopt_long over the command's own options and the common
 * ones, with the common ones answered here.
 */
#include "cli_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* What getopt_long returns for -o/--output and --memory-mb. */
enum {
  OPT_OUTPUT = 'o',
  OPT_MEMORY = OPT_PROGRESS + 1 /* below OPT_FIRST_PRIVATE (cli.h) */
};

static const char default_output_needs_value[] = "-o needs a file name";
static const char default_inputs_missing[] = "give a trace folder or files";

static void add_long(cli_parser *p, size_t *n, const char *name,
                     bool takes_value, int id) {
  struct option *o = &p->longs[(*n)++];
  o->name = name;
  o->has_arg = takes_value ? required_argument : no_argument;
  o->flag = NULL;
  o->val = id;
}

void cli_parse_begin(cli_parser *p, const cli_command_line *line, int argc,
                     char **argv) {
  memset(p, 0, sizeof *p);
  p->line = line;
  p->argc = argc;
  p->argv = argv;
  size_t n = 0;
  for (const cli_option *o = line->options; o && o->name; o++) {
    if (n == CLI_MAX_OPTIONS) {
      p->too_many_options = true; /* cli_parse_next says so */
      break;
    }
    add_long(p, &n, o->name, o->takes_value, o->id);
  }
  if (line->output_usage)
    add_long(p, &n, "output", true, OPT_OUTPUT);
  if (line->memory_mb)
    add_long(p, &n, "memory-mb", true, OPT_MEMORY);
  p->memory_bytes = CLI_DEFAULT_MEMORY_BYTES;
  add_long(p, &n, "help", false, OPT_HELP);
  add_long(p, &n, "quiet", false, OPT_QUIET);
  add_long(p, &n, "progress", false, OPT_PROGRESS);
  add_long(p, &n, "jobs", true, OPT_JOBS);
  /* p->longs[n] stays zeroed: the end marker */
  /* ':' first: a missing value is told apart from an unknown option */
  p->shorts = line->output_usage ? ":ho:qj:" : ":hqj:";
  optind = 0;
  opterr = 0;
}

static int stop(cli_parser *p, int status) {
  p->status = status;
  return CLI_PARSE_EXIT;
}

/* After the last option: what every command requires. */
static int finish(cli_parser *p) {
  const cli_command_line *line = p->line;
  if (line->output_usage && !p->output)
    return stop(p, usage_error(line->cmd, "say where to write with %s",
                               line->output_usage));
  if (optind >= p->argc)
    return stop(p, usage_error(line->cmd, "%s",
                               line->inputs_missing ? line->inputs_missing
                                                    : default_inputs_missing));
  p->ninputs = p->argc - optind;
  p->inputs = p->argv + optind;
  return CLI_PARSE_DONE;
}

int cli_parse_next(cli_parser *p) {
  const cli_command_line *line = p->line;
  if (p->too_many_options) {
    fprintf(stderr, "cclscope %s: more than %d options (cli_options.h)\n",
            line->cmd, CLI_MAX_OPTIONS);
    return stop(p, EXIT_USAGE);
  }
  for (;;) {
    int o = getopt_long(p->argc, p->argv, p->shorts, p->longs, NULL);
    p->value = optarg;
    switch (o) {
    case -1:
      return finish(p);
    case OPT_HELP:
      help_print(line->cmd, stdout);
      return stop(p, EXIT_OK);
    case OPT_QUIET:
    case OPT_PROGRESS:
      cli_global_option(o);
      break;
    case OPT_JOBS:
      if (!cli_set_jobs(optarg))
        return stop(p, usage_error(line->cmd,
                                   "--jobs needs a number of threads from 1 "
                                   "to %d, not '%s'",
                                   CLI_MAX_JOBS, optarg));
      break;
    case OPT_OUTPUT:
      p->output = optarg;
      break;
    case OPT_MEMORY:
      if (!parse_memory_mb(optarg, &p->memory_bytes))
        return stop(p,
                    usage_error(line->cmd,
                                "--memory-mb needs a number of MiB, not '%s'",
                                optarg));
      break;
    case ':':
      if (optopt == OPT_OUTPUT)
        return stop(p, usage_error(line->cmd, "%s",
                                   line->output_needs_value
                                       ? line->output_needs_value
                                       : default_output_needs_value));
      return stop(
          p, usage_error(line->cmd, "%s needs a value", p->argv[optind - 1]));
    case '?':
      return stop(p, usage_error(line->cmd, "unknown option '%s'",
                                 p->argv[optind - 1]));
    default:
      return o;
    }
  }
}

bool cli_number(const char *text, long long min, long long max,
                long long *value) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (*text == '\0' || *end || errno || v < min || v > max)
    return false;
  *value = v;
  return true;
}

bool parse_memory_mb(const char *text, size_t *bytes) {
  long long mib;
  if (!cli_number(text, 1, 1ll << 20, &mib))
    return false;
  *bytes = (size_t)mib << 20;
  return true;
}

bool output_is_an_input(const char *cmd, const char *output,
                        const tr_inputs *in) {
  struct stat out_st, in_st;
  if (strcmp(output, "-") == 0 || stat(output, &out_st) != 0)
    return false;
  for (size_t i = 0; i < in->n; i++) {
    if (stat(in->paths[i], &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino) {
      usage_error(cmd,
                  "the output '%s' is also an input (write it outside the "
                  "trace folder)",
                  output);
      return true;
    }
  }
  return false;
}
