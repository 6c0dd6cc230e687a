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
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "read/ordered_reader.h"

bool parse_memory_mb(const char *text, size_t *bytes) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (*text == '\0' || *end || errno || v < 1 || v > (1ull << 20))
    return false;
  *bytes = (size_t)v << 20;
  return true;
}

int memory_option(const char *cmd, const char *text, size_t *bytes) {
  if (parse_memory_mb(text, bytes))
    return 0;
  return usage_error(cmd, "--memory-mb needs a number of MiB, not '%s'", text);
}

int cmd_merge(int argc, char **argv) {
  static const struct option longs[] = {
      {"output", required_argument, NULL, 'o'},
      {"order", required_argument, NULL, 'r'},
      {"memory-mb", required_argument, NULL, 'w'},
      {"help", no_argument, NULL, OPT_HELP},
      {"quiet", no_argument, NULL, OPT_QUIET},
      {"progress", no_argument, NULL, OPT_PROGRESS},
      {NULL, 0, NULL, 0}};
  const char *output = NULL;
  ord_mode mode = ORD_START;
  size_t memory = 256u << 20;
  optind = 0;
  opterr = 0;
  int o;
  while ((o = getopt_long(argc, argv, "ho:q", longs, NULL)) != -1) {
    switch (o) {
    case 'o':
      output = optarg;
      break;
    case 'r':
      if (strcmp(optarg, "start") == 0)
        mode = ORD_START;
      else if (strcmp(optarg, "end") == 0)
        mode = ORD_END;
      else
        return usage_error("merge", "--order is 'start' or 'end', not '%s'",
                           optarg);
      break;
    case 'w':
      if (memory_option("merge", optarg, &memory) != 0)
        return EXIT_USAGE;
      break;
    case OPT_HELP:
      help_print("merge", stdout);
      return EXIT_OK;
    case OPT_QUIET:
    case OPT_PROGRESS:
      cli_global_option(o);
      break;
    default:
      if (optopt == 'o')
        return usage_error("merge", "-o needs a file name");
      return usage_error("merge", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (!output)
    return usage_error("merge", "say where to write with -o FILE");
  if (optind >= argc)
    return usage_error("merge", "give a trace folder or files");
  tr_inputs in;
  if (!tr_inputs_collect(&in, argc - optind, argv + optind))
    return EXIT_FINDINGS;
  bool to_stdout = strcmp(output, "-") == 0;
  struct stat out_st;
  if (!to_stdout && stat(output, &out_st) == 0) {
    for (size_t i = 0; i < in.n; i++) {
      struct stat in_st;
      if (stat(in.paths[i], &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
          in_st.st_ino == out_st.st_ino) {
        fprintf(stderr,
                "cclscope merge: the output '%s' is also an input (write it "
                "outside the trace folder)\n",
                output);
        tr_inputs_free(&in);
        return EXIT_USAGE;
      }
    }
  }
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
  if (!ord_open(&rd, &in, mode, memory, "merge")) {
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
