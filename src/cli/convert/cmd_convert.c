/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/cmd_convert.c — `cclscope convert DIR|FILE... -o OUT`:
 * traces written in the minimal_profiler format rewritten in cclscope's
 * own (docs/trace-format.md "Reading minimal_profiler traces").
 *
 * The read layer already converts while reading (read/seed_format.h); this
 * command writes what it yields, file for file, in file order (no
 * sorting): one input file to the file OUT (or `-`, stdout), several to
 * the folder OUT (created if needed), each under its own name. A file
 * already in cclscope's format is copied line for line: a binary trace
 * (`.cst`) becomes the JSONL its records hold, and `--to binary` writes
 * the lines in the binary container instead (stored frames): events and
 * timing records as the compact records the plugin writes, wherever they
 * read back as the very same line (convert/compact_out.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_options.h"
#include "convert/compact_out.h"
#include "cst_format.h"
#include "read/trace_reader.h"

static const cli_option convert_options[] = {{"to", true, 't'},
                                             {NULL, false, 0}};

static const cli_command_line convert_command_line = {
    .cmd = "convert",
    .options = convert_options,
    .output_usage = "-o FILE|DIR",
};

typedef struct {
  uint64_t lines;
  bool converted;   /* the input was in the minimal_profiler format */
  co_counts binary; /* --to binary: how the lines were written */
} convert_result;

/* --to binary: the lines in the binary container (cst_format.h), as
 * compact records where they give the line back exactly, else as line
 * records (convert/compact_out.h). */
static bool to_binary;

/* Copy what the reader yields for `path` to `out`. False (with a message)
 * when reading or writing fails. */
static bool convert_file(const char *path, FILE *out, const char *out_name,
                         convert_result *res) {
  tr_file tf;
  int err = tr_open(&tf, path, 1 << 20);
  if (err) {
    fprintf(stderr, "cclscope convert: cannot open '%s': %s\n", path,
            tr_strerror(err));
    return false;
  }
  res->converted = tf.format == TR_FORMAT_MINIMAL_PROFILER;
  co_out *bin = NULL;
  bool bin_ok = true;
  if (to_binary) {
    unsigned char head[CST_FILE_HEADER];
    cst_file_header(head, 0);
    fwrite(head, 1, sizeof head, out);
    bin = co_new(out);
    bin_ok = bin != NULL;
  }
  int got;
  while ((got = tr_next(&tf)) == 1) {
    if (to_binary) {
      bin_ok = bin_ok && co_line(bin, tf.line, tf.line_len);
    } else {
      fwrite(tf.line, 1, tf.line_len, out);
      fputc('\n', out);
    }
    res->lines++;
  }
  if (to_binary) {
    bin_ok = bin_ok && co_finish(bin);
    if (bin) {
      co_counts n = co_get_counts(bin);
      res->binary.compact += n.compact;
      res->binary.as_lines += n.as_lines;
      res->binary.fallbacks += n.fallbacks;
    }
    co_free(bin);
  }
  bool ok = true;
  if (!bin_ok && !ferror(out)) {
    fprintf(stderr, "cclscope convert: no memory for '%s'\n", out_name);
    ok = false;
  }
  if (got < 0) {
    fprintf(stderr, "cclscope convert: error reading '%s': %s\n", path,
            tr_strerror(tf.error));
    ok = false;
  }
  tr_close(&tf);
  if (fflush(out) != 0 || ferror(out)) {
    fprintf(stderr, "cclscope convert: writing '%s' failed: %s\n", out_name,
            strerror(errno));
    ok = false;
  }
  return ok;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The name of an input's copy in OUT: its own, except that it says the
 * format it is written in: `x.cst` becomes `x.jsonl`; with --to binary,
 * `x.jsonl` (.zst, .gz) becomes `x.cst`. */
static void out_name(const char *path, char *out, size_t len) {
  const char *base = base_name(path);
  size_t n = strlen(base);
  const char *suffixes[] = {".cst", ".jsonl", ".jsonl.zst", ".jsonl.gz"};
  for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
    size_t m = strlen(suffixes[i]);
    if (n > m && strcmp(base + n - m, suffixes[i]) == 0 &&
        (i == 0 || to_binary)) {
      snprintf(out, len, "%.*s%s", (int)(n - m), base,
               to_binary ? ".cst" : ".jsonl");
      return;
    }
  }
  snprintf(out, len, "%s", base);
}

/* Two inputs with the same name would overwrite each other in OUT. */
static bool names_collide(const tr_inputs *in) {
  char a[1024], b[1024];
  for (size_t i = 0; i < in->n; i++)
    for (size_t j = i + 1; j < in->n; j++) {
      out_name(in->paths[i], a, sizeof a);
      out_name(in->paths[j], b, sizeof b);
      if (strcmp(a, b) == 0) {
        fprintf(stderr,
                "cclscope convert: '%s' and '%s' have the same name: "
                "convert them into different folders\n",
                in->paths[i], in->paths[j]);
        return true;
      }
    }
  return false;
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One input: to the file `output` (or stdout). */
static int convert_one(const tr_inputs *in, const char *output,
                       convert_result *res) {
  bool to_stdout = strcmp(output, "-") == 0;
  FILE *out = to_stdout ? stdout : fopen(output, "w");
  if (!out) {
    fprintf(stderr, "cclscope convert: cannot create '%s': %s\n", output,
            strerror(errno));
    return EXIT_FINDINGS;
  }
  bool ok = convert_file(in->paths[0], out, output, res);
  if (!to_stdout && fclose(out) != 0) {
    fprintf(stderr, "cclscope convert: closing '%s' failed: %s\n", output,
            strerror(errno));
    ok = false;
  }
  return ok ? EXIT_OK : EXIT_FINDINGS;
}

/* Several inputs: each to OUT/<its name>. */
static int convert_many(const tr_inputs *in, const char *dir,
                        convert_result *res, size_t *converted) {
  if (names_collide(in))
    return EXIT_USAGE;
  if (!is_dir(dir) && mkdir(dir, 0777) != 0) {
    fprintf(stderr, "cclscope convert: cannot create the folder '%s': %s\n",
            dir, strerror(errno));
    return EXIT_FINDINGS;
  }
  int status = EXIT_OK;
  for (size_t i = 0; i < in->n; i++) {
    char path[4096], name[1024];
    out_name(in->paths[i], name, sizeof name);
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
      fprintf(stderr, "cclscope convert: the path '%s/%s' is too long\n", dir,
              name);
      status = EXIT_FINDINGS;
      continue;
    }
    if (output_is_an_input("convert", path, in))
      return EXIT_USAGE;
    FILE *out = fopen(path, "w");
    if (!out) {
      fprintf(stderr, "cclscope convert: cannot create '%s': %s\n", path,
              strerror(errno));
      status = EXIT_FINDINGS;
      continue;
    }
    convert_result one = {0, false, {0, 0, 0}};
    if (!convert_file(in->paths[i], out, path, &one))
      status = EXIT_FINDINGS;
    if (fclose(out) != 0) {
      fprintf(stderr, "cclscope convert: closing '%s' failed: %s\n", path,
              strerror(errno));
      status = EXIT_FINDINGS;
    }
    res->lines += one.lines;
    res->binary.compact += one.binary.compact;
    res->binary.as_lines += one.binary.as_lines;
    res->binary.fallbacks += one.binary.fallbacks;
    *converted += one.converted;
  }
  return status;
}

int cmd_convert(int argc, char **argv) {
  cli_parser p;
  cli_parse_begin(&p, &convert_command_line, argc, argv);
  int o;
  to_binary = false;
  while ((o = cli_parse_next(&p)) > 0) {
    if (o == 't' && strcmp(p.value, "binary") == 0)
      to_binary = true;
    else if (o == 't' && strcmp(p.value, "jsonl") != 0)
      return usage_error("convert", "--to takes jsonl or binary, not '%s'",
                         p.value);
  }
  if (o == CLI_PARSE_EXIT)
    return p.status;
  const char *output = p.output;
  tr_inputs in;
  if (!tr_inputs_collect(&in, p.ninputs, p.inputs))
    return EXIT_FINDINGS;
  int status;
  convert_result res = {0, false, {0, 0, 0}};
  size_t converted = 0;
  bool many = in.n > 1 || (strcmp(output, "-") != 0 && is_dir(output));
  if (many && strcmp(output, "-") == 0) {
    size_t n = in.n;
    tr_inputs_free(&in);
    return usage_error("convert",
                       "%zu input files need a folder after -o (one output "
                       "file per process), not stdout",
                       n);
  }
  if (!many && output_is_an_input("convert", output, &in)) {
    tr_inputs_free(&in);
    return EXIT_USAGE;
  }
  if (many) {
    status = convert_many(&in, output, &res, &converted);
  } else {
    status = convert_one(&in, output, &res);
    converted = res.converted;
  }
  if (status == EXIT_OK && !cli_globals.quiet)
    fprintf(stderr,
            "cclscope convert: %zu file%s (%zu in the minimal_profiler "
            "format), %" PRIu64 " lines, to %s\n",
            in.n, in.n == 1 ? "" : "s", converted, res.lines,
            strcmp(output, "-") == 0 ? "stdout" : output);
  /* How the lines went into the binary container: events and timing
   * records as compact records, unless they would not read back exactly
   * (docs/cli.md "convert"). */
  if (status == EXIT_OK && !cli_globals.quiet && to_binary)
    fprintf(stderr,
            "cclscope convert: %" PRIu64 " lines as compact records, %" PRIu64
            " as line records (%" PRIu64
            " of them event or timing lines kept as they are)\n",
            res.binary.compact, res.binary.as_lines, res.binary.fallbacks);
  tr_inputs_free(&in);
  return status;
}
