/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/cmd_merge.c — `cclscope merge DIR|FILE... -o FILE`: one
 * time-ordered JSONL file from many processes.
 *
 * An external merge sort (ordered_reader.h): chunks of --memory-mb are
 * sorted and spilled to temporary files, then k-way merged, so the order is
 * exact and memory does not depend on the size of the trace. Lines are
 * copied byte for byte; pad records and invalid lines are left out (and
 * counted).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "read/ordered_reader.h"

static const cli_option merge_options[] = {{"order", true, 'r'},
                                           {NULL, false, 0}};

static const cli_command_line merge_command_line = {
    .cmd = "merge",
    .options = merge_options,
    .output_usage = "-o FILE",
    .memory_mb = true,
};

int cmd_merge(int argc, char **argv) {
  ord_mode mode = ORD_START;
  cli_parser p;
  cli_parse_begin(&p, &merge_command_line, argc, argv);
  int o;
  while ((o = cli_parse_next(&p)) > 0) {
    switch (o) {
    case 'r':
      if (strcmp(p.value, "start") == 0)
        mode = ORD_START;
      else if (strcmp(p.value, "end") == 0)
        mode = ORD_END;
      else
        return usage_error("merge", "--order is 'start' or 'end', not '%s'",
                           p.value);
      break;
    }
  }
  if (o == CLI_PARSE_EXIT)
    return p.status;
  const char *output = p.output;
  tr_inputs in;
  if (!tr_inputs_collect(&in, p.ninputs, p.inputs))
    return EXIT_FINDINGS;
  if (output_is_an_input("merge", output, &in)) {
    tr_inputs_free(&in);
    return EXIT_USAGE;
  }
  bool to_stdout = strcmp(output, "-") == 0;
  if (nothing_to_convert("merge", &in)) {
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  FILE *out = to_stdout ? stdout : fopen(output, "w");
  if (!out) {
    fprintf(stderr, "cclscope merge: cannot create '%s': %s\n", output,
            strerror(errno));
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  static char outbuf[1 << 20];
  setvbuf(out, outbuf, _IOFBF, sizeof outbuf);
  ord_reader rd;
  int status = EXIT_OK;
  /* the lines are copied as they are: nothing decoded is kept */
  if (!ord_open_lines(&rd, &in, mode, p.memory_bytes, "merge")) {
    fprintf(stderr, "cclscope merge: %s\n",
            rd.failed ? "sorting failed" : "out of memory");
    status = EXIT_FINDINGS;
  } else {
    ord_where w;
    const rec *r;
    while ((r = ord_next(&rd, &w)) != NULL) {
      fwrite(r->line, 1, r->len, out);
      fputc('\n', out);
    }
    if (rd.unreadable_files || rd.failed)
      status = EXIT_FINDINGS;
    if (!cli_globals.quiet) {
      fprintf(stderr,
              "cclscope merge: %" PRIu64 " records from %zu files, by %s "
              "time, to %s (%.1f MB sorted on disk)\n",
              rd.records, in.n, mode == ORD_START ? "start" : "end",
              to_stdout ? "stdout" : output, (double)rd.spilled_bytes / 1e6);
      if (rd.invalid)
        fprintf(stderr,
                "cclscope merge: %" PRIu64 " invalid lines left out (run "
                "`cclscope check`)\n",
                rd.invalid);
    }
    ord_close(&rd);
  }
  if (fflush(out) != 0 || ferror(out)) {
    fprintf(stderr, "cclscope merge: writing '%s' failed: %s\n", output,
            strerror(errno));
    status = EXIT_FINDINGS;
  }
  if (!to_stdout && fclose(out) != 0) {
    fprintf(stderr, "cclscope merge: closing '%s' failed: %s\n", output,
            strerror(errno));
    status = EXIT_FINDINGS;
  }
  tr_inputs_free(&in);
  return status;
}
