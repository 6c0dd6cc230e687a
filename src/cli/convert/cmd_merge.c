/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/cmd_merge.c — `cclscope merge DIR|FILE... -o FILE`: one
 * time-ordered JSONL file from many processes.
 *
 * Into a file: through a reorder window of --memory-mb (ord_open_window:
 * no sort, nothing on disk, for inputs nearly in order, as the plugin
 * writes them); when a record comes later than the window holds, the file
 * is emptied and written again through the external merge sort
 * (ord_open_lines: chunks of --memory-mb sorted and spilled to temporary
 * files, then k-way merged), which stdout always takes. Either way the
 * order is exact and memory does not depend on the size of the trace.
 * Lines are copied byte for byte (written by a thread of their own with
 * -j > 1: write_behind.h); pad records and invalid lines are left out (and
 * counted).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "read/ordered_reader.h"
#include "util/write_behind.h"

static const cli_option merge_options[] = {{"order", true, 'r'},
                                           {NULL, false, 0}};

static const cli_command_line merge_command_line = {
    .cmd = "merge",
    .options = merge_options,
    .output_usage = "-o FILE",
    .memory_mb = true,
};

/* Write the records of `in` to `out` in order: through a reorder window
 * (ord_open_window) or the external sort. False only when the window met a
 * record too far out of order: `out` then holds a part to throw away. */
static bool merge_into(write_behind *out, const tr_inputs *in, ord_mode mode,
                       size_t memory_bytes, bool windowed, int *status,
                       const char *output) {
  ord_reader rd;
  /* the lines are copied as they are: nothing decoded is kept */
  bool opened = windowed ? ord_open_window(&rd, in, mode, memory_bytes, "merge")
                         : ord_open_lines(&rd, in, mode, memory_bytes, "merge");
  if (!opened) {
    fprintf(stderr, "cclscope merge: %s\n",
            rd.failed ? "sorting failed" : "out of memory");
    *status = EXIT_FINDINGS;
    return true;
  }
  ord_where w;
  const rec *r;
  while ((r = ord_next(&rd, &w)) != NULL) {
    wb_put(out, r->line, r->len);
    wb_put(out, "\n", 1);
  }
  if (rd.out_of_window) {
    ord_close(&rd);
    return false;
  }
  if (rd.unreadable_files || rd.failed)
    *status = EXIT_FINDINGS;
  wb_wait(out); /* stdout and stderr in the same order at any -j */
  if (!cli_globals.quiet) {
    fprintf(stderr,
            "cclscope merge: %" PRIu64 " records from %zu files, by %s "
            "time, to %s (%.1f MB sorted on disk)\n",
            rd.records, in->n, mode == ORD_START ? "start" : "end",
            strcmp(output, "-") == 0 ? "stdout" : output,
            (double)rd.spilled_bytes / 1e6);
    if (rd.invalid)
      fprintf(stderr,
              "cclscope merge: %" PRIu64 " invalid lines left out (run "
              "`cclscope check`)\n",
              rd.invalid);
  }
  ord_close(&rd);
  return true;
}

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
  int fd = to_stdout
               ? STDOUT_FILENO
               : open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    fprintf(stderr, "cclscope merge: cannot create '%s': %s\n", output,
            strerror(errno));
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  /* with reading threads, a thread of its own writes the output */
  unsigned jobs = tr_jobs ? tr_jobs : ra_default_jobs();
  write_behind *out = wb_open(fd, jobs > 1);
  if (!out) {
    fprintf(stderr, "cclscope merge: out of memory\n");
    if (!to_stdout)
      close(fd);
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  int status = EXIT_OK;
  /* A file can be started again when the window finds the inputs too far
   * out of order: the fast way first, for inputs it suits. stdout cannot
   * be started again, so it sorts. */
  bool windowed = !to_stdout && ord_window_suits(&in);
  if (!merge_into(out, &in, mode, p.memory_bytes, windowed, &status, output) &&
      windowed) {
    if (!cli_globals.quiet)
      fprintf(stderr,
              "cclscope merge: the inputs are out of order by more than "
              "--memory-mb holds; sorting them on disk\n");
    int err = wb_flush(out);
    if (err == 0 && (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0))
      err = errno;
    if (err) {
      fprintf(stderr, "cclscope merge: cannot start '%s' again: %s\n", output,
              strerror(err));
      status = EXIT_FINDINGS;
    } else {
      status = EXIT_OK;
      merge_into(out, &in, mode, p.memory_bytes, false, &status, output);
    }
  }
  int err = wb_close(out);
  if (err) {
    fprintf(stderr, "cclscope merge: writing '%s' failed: %s\n", output,
            strerror(err));
    status = EXIT_FINDINGS;
  }
  if (!to_stdout && close(fd) != 0) {
    fprintf(stderr, "cclscope merge: closing '%s' failed: %s\n", output,
            strerror(errno));
    status = EXIT_FINDINGS;
  }
  tr_inputs_free(&in);
  return status;
}
