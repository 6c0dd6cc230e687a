/*
 * src/cli/summary/cmd_summary.c — `cclscope summary DIR|FILE...`: options,
 * then summary_collect (summary_collect.c) reads the traces and
 * summary_print.c prints tables or JSON. The data model is in summary.h.
 */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "summary/summary.h"

int cmd_summary(int argc, char **argv) {
  static const struct option longs[] = {
      {"json", no_argument, NULL, 'j'},
      {"top", required_argument, NULL, 't'},
      {"help", no_argument, NULL, OPT_HELP},
      {"quiet", no_argument, NULL, OPT_QUIET},
      {"progress", no_argument, NULL, OPT_PROGRESS},
      {NULL, 0, NULL, 0}};
  summary *s = calloc(1, sizeof *s);
  if (!s) {
    fprintf(stderr, "cclscope summary: out of memory\n");
    return EXIT_FINDINGS;
  }
  s->top = 5;
  optind = 0;
  opterr = 0;
  int o;
  while ((o = getopt_long(argc, argv, "hq", longs, NULL)) != -1) {
    switch (o) {
    case 'j':
      s->json = true;
      break;
    case 't': {
      char *end;
      long v = strtol(optarg, &end, 10);
      if (*optarg == '\0' || *end || v < 1 || v > WORST_KEEP) {
        free(s);
        return usage_error("summary", "--top needs a number from 1 to %d",
                           WORST_KEEP);
      }
      s->top = (int)v;
      break;
    }
    case OPT_HELP:
      free(s);
      help_print("summary", stdout);
      return EXIT_OK;
    case OPT_QUIET:
    case OPT_PROGRESS:
      cli_global_option(o);
      break;
    default:
      free(s);
      return usage_error("summary", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc) {
    free(s);
    return usage_error("summary", "give a trace folder or files");
  }
  tr_inputs in;
  if (!tr_inputs_collect(&in, argc - optind, argv + optind)) {
    free(s);
    return EXIT_FINDINGS;
  }
  int status = summary_collect(s, &in);
  if (status < 0) {
    fprintf(stderr, "cclscope summary: out of memory\n");
    status = EXIT_FINDINGS;
  } else {
    if (s->json)
      summary_print_json(s);
    else
      summary_print_text(s);
  }
  summary_free(s);
  free(s);
  tr_inputs_free(&in);
  return status;
}
