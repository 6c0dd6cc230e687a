/*
 * src/cli/hang/cmd_hang.c — `cclscope hang DIR|FILE...`: reads the in-flight
 * snapshots of all ranks and, for processes without one, their traces;
 * says per communicator and function who is behind and who everything
 * waits on (hang_analyze.c), as text or JSON.
 *
 * Exit status: 0 no snapshot says an operation is hung, 1 a hang is
 * reported (or an input could not be read), 2 usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hang/hang.h"

typedef struct {
  bool json;
  bool traces;
  hang_print_options print;
} options;

static int parse(int argc, char **argv, options *o) {
  static const struct option longs[] = {
      {"json", no_argument, NULL, 'j'},
      {"max-ranks", required_argument, NULL, 'm'},
      {"no-traces", no_argument, NULL, 'n'},
      {"help", no_argument, NULL, OPT_HELP},
      {"quiet", no_argument, NULL, OPT_QUIET},
      {"progress", no_argument, NULL, OPT_PROGRESS},
      {NULL, 0, NULL, 0}};
  o->json = false;
  o->traces = true;
  o->print.max_ranks = 32;
  optind = 0;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "hq", longs, NULL)) != -1) {
    switch (c) {
    case 'j':
      o->json = true;
      break;
    case 'n':
      o->traces = false;
      break;
    case 'm': {
      char *end;
      long v = strtol(optarg, &end, 10);
      if (*optarg == '\0' || *end || v < 0 || v > 1000000)
        return usage_error("hang", "--max-ranks needs a number (0 = all)");
      o->print.max_ranks = (size_t)v;
      break;
    }
    case OPT_HELP:
      help_print("hang", stdout);
      return -1;
    case OPT_QUIET:
    case OPT_PROGRESS:
      cli_global_option(c);
      break;
    default:
      return usage_error("hang", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc)
    return usage_error("hang", "give the run's folder (or snapshot and "
                               "trace files)");
  return EXIT_OK;
}

int cmd_hang(int argc, char **argv) {
  options o;
  int rc = parse(argc, argv, &o);
  if (rc < 0)
    return EXIT_OK; /* --help */
  if (rc != EXIT_OK)
    return rc;
  hang_inputs in;
  if (!hang_inputs_collect(&in, argc - optind, argv + optind))
    return EXIT_FINDINGS;
  if (in.snapshots.n == 0 && in.traces.n == 0) {
    fprintf(stderr,
            "cclscope hang: no in-flight snapshots (inflight_*.json) and no "
            "traces (*.jsonl) in the input\n");
    hang_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  hang_db db;
  memset(&db, 0, sizeof db);
  bool read_ok = true;
  for (size_t i = 0; i < in.snapshots.n; i++)
    read_ok &= hang_read_snapshot(&db, in.snapshots.paths[i]);
  /* Traces only matter when something is hung. */
  for (size_t i = 0; db.hung_ops && o.traces && i < in.traces.n; i++)
    read_ok &= hang_read_trace(&db, in.traces.paths[i]);
  hang_report report;
  bool ok = hang_analyze(&db, &report);
  if (!ok) {
    fprintf(stderr, "cclscope hang: out of memory (or a communicator with "
                    "an impossible number of ranks)\n");
  } else if (o.json) {
    hang_print_json(&db, &report);
  } else {
    hang_print_text(&db, &report, &o.print);
  }
  rc = !ok || !read_ok || db.hung_ops ? EXIT_FINDINGS : EXIT_OK;
  hang_report_free(&report);
  hang_db_free(&db);
  hang_inputs_free(&in);
  return rc;
}
