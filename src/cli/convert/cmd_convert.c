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
 * already in cclscope's format is copied line for line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_options.h"
#include "read/trace_reader.h"

static const cli_option convert_options[] = {{NULL, false, 0}};

static const cli_command_line convert_command_line = {
    .cmd = "convert",
    .options = convert_options,
    .output_usage = "-o FILE|DIR",
};

typedef struct {
  uint64_t lines;
  bool converted; /* the input was in the minimal_profiler format */
} convert_result;

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
  int got;
  while ((got = tr_next(&tf)) == 1) {
    fwrite(tf.line, 1, tf.line_len, out);
    fputc('\n', out);
    res->lines++;
  }
  bool ok = true;
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

/* Two inputs with the same name would overwrite each other in OUT. */
static bool names_collide(const tr_inputs *in) {
  for (size_t i = 0; i < in->n; i++)
    for (size_t j = i + 1; j < in->n; j++)
      if (strcmp(base_name(in->paths[i]), base_name(in->paths[j])) == 0) {
        fprintf(stderr,
                "cclscope convert: '%s' and '%s' have the same name: "
                "convert them into different folders\n",
                in->paths[i], in->paths[j]);
        return true;
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
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, base_name(in->paths[i])) >=
        (int)sizeof path) {
      fprintf(stderr, "cclscope convert: the path '%s/%s' is too long\n", dir,
              base_name(in->paths[i]));
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
    convert_result one = {0, false};
    if (!convert_file(in->paths[i], out, path, &one))
      status = EXIT_FINDINGS;
    if (fclose(out) != 0) {
      fprintf(stderr, "cclscope convert: closing '%s' failed: %s\n", path,
              strerror(errno));
      status = EXIT_FINDINGS;
    }
    res->lines += one.lines;
    *converted += one.converted;
  }
  return status;
}

int cmd_convert(int argc, char **argv) {
  cli_parser p;
  cli_parse_begin(&p, &convert_command_line, argc, argv);
  int o;
  while ((o = cli_parse_next(&p)) > 0) {
  }
  if (o == CLI_PARSE_EXIT)
    return p.status;
  const char *output = p.output;
  tr_inputs in;
  if (!tr_inputs_collect(&in, p.ninputs, p.inputs))
    return EXIT_FINDINGS;
  int status;
  convert_result res = {0, false};
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
  tr_inputs_free(&in);
  return status;
}
