/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/cmd_hang.c — `cclscope hang DIR|FILE...`: reads the in-flight
 * snapshots of all ranks and, for processes without one, their traces;
 * says per communicator and function who is behind and who everything
 * waits on (hang_analyze.c), as text or JSON.
 *
 * Exit status: 0 no snapshot says an operation is hung, 1 a hang is
 * reported (or an input could not be read), 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "hang/hang.h"

typedef struct {
  bool json;
  bool traces;
  hang_print_options print;
} options;

static const cli_option hang_options[] = {{"json", false, 'J'},
                                          {"max-ranks", true, 'm'},
                                          {"no-traces", false, 'n'},
                                          {NULL, false, 0}};

static const cli_command_line hang_command_line = {
    .cmd = "hang",
    .options = hang_options,
    .inputs_missing = "give the run's folder (or snapshot and trace files)",
};

/* CLI_PARSE_DONE (inputs in *p) or CLI_PARSE_EXIT (exit with p->status). */
static int parse(options *o, cli_parser *p, int argc, char **argv) {
  o->json = false;
  o->traces = true;
  o->print.max_ranks = 32;
  cli_parse_begin(p, &hang_command_line, argc, argv);
  int c;
  while ((c = cli_parse_next(p)) > 0) {
    switch (c) {
    case 'J':
      o->json = true;
      break;
    case 'n':
      o->traces = false;
      break;
    case 'm': {
      long long v;
      if (!cli_number(p->value, 0, 1000000, &v)) {
        p->status = usage_error("hang", "--max-ranks needs a number (0 = all)");
        return CLI_PARSE_EXIT;
      }
      o->print.max_ranks = (size_t)v;
      break;
    }
    }
  }
  return c;
}

int cmd_hang(int argc, char **argv) {
  options o;
  cli_parser p;
  if (parse(&o, &p, argc, argv) == CLI_PARSE_EXIT)
    return p.status;
  hang_inputs in;
  if (!hang_inputs_collect(&in, p.ninputs, p.inputs))
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
  int rc = !ok || !read_ok || db.hung_ops ? EXIT_FINDINGS : EXIT_OK;
  hang_report_free(&report);
  hang_db_free(&db);
  hang_inputs_free(&in);
  return rc;
}
