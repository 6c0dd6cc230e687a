/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/cmd_summary.c — `cclscope summary DIR|FILE...`: options,
 * then summary_collect (summary_collect.c) reads the traces and
 * summary_print.c prints tables or JSON. The data model is in summary.h.
 */
#include <stdlib.h>

#include "cli.h"
#include "cli_options.h"
#include "summary/summary.h"

static const cli_option summary_options[] = {
    {"json", false, 'J'}, {"top", true, 't'}, {NULL, false, 0}};

static const cli_command_line summary_command_line = {
    .cmd = "summary",
    .options = summary_options,
};

int cmd_summary(int argc, char **argv) {
  bool json = false;
  int top = 5;
  cli_parser p;
  cli_parse_begin(&p, &summary_command_line, argc, argv);
  int o;
  while ((o = cli_parse_next(&p)) > 0) {
    switch (o) {
    case 'J':
      json = true;
      break;
    case 't': {
      long long v;
      if (!cli_number(p.value, 1, WORST_KEEP, &v))
        return usage_error("summary", "--top needs a number from 1 to %d",
                           WORST_KEEP);
      top = (int)v;
      break;
    }
    }
  }
  if (o == CLI_PARSE_EXIT)
    return p.status;
  summary *s = calloc(1, sizeof *s);
  if (!s) {
    fprintf(stderr, "cclscope summary: out of memory\n");
    return EXIT_FINDINGS;
  }
  s->json = json;
  s->top = top;
  tr_inputs in;
  if (!tr_inputs_collect(&in, p.ninputs, p.inputs)) {
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
