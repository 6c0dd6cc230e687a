/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/cmd_summary.c — `cclscope summary DIR|FILE...`: options,
 * then summary_collect (summary_collect.c) reads the traces and
 * summary_print.c prints tables or JSON. The data model is in summary.h.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "summary/summary.h"
#include "summary/text_wrap.h"

static const cli_option summary_options[] = {{"json", false, 'J'},
                                             {"top", true, 't'},
                                             {"wide", false, 'W'},
                                             {NULL, false, 0}};

static const cli_command_line summary_command_line = {
    .cmd = "summary",
    .options = summary_options,
};

int cmd_summary(int argc, char **argv) {
  bool json = false, wide = false;
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
      if (strcmp(p.value, "all") == 0)
        top = INT_MAX;
      else if (cli_number(p.value, 1, INT_MAX - 1, &v))
        top = (int)v;
      else
        return usage_error("summary",
                           "--top needs a number of rows (1 or more) or "
                           "'all', not '%s'",
                           p.value);
      break;
    }
    case 'W':
      wide = true;
      break;
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
  s->width = text_width_for_stdout(wide);
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
