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
 * the lines in the binary container instead (stored frames).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_options.h"
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
  bool converted; /* the input was in the minimal_profiler format */
} convert_result;

/* --to binary: the lines in the binary container (cst_format.h), in stored
 * frames of about this much text. */
static bool to_binary;
enum { BINARY_FRAME_TEXT = 1 << 20 };

typedef struct {
  char *text; /* lines of the frame being filled, each with its '\n' */
  size_t len, cap;
  unsigned char *frame;
  size_t frame_cap;
} binary_out;

/* The buffered lines as one stored frame. False when out of memory or
 * when writing fails (ferror tells). */
static bool binary_flush(binary_out *b, FILE *out) {
  if (b->len == 0)
    return true;
  cst_frame_info info = {CST_CODEC_STORED, 0, 0};
  size_t payload = cst_lines_payload_size(b->text, b->len, &info.records);
  if (CST_FRAME_HEADER + payload > b->frame_cap) {
    unsigned char *p = realloc(b->frame, CST_FRAME_HEADER + payload);
    if (!p)
      return false;
    b->frame = p;
    b->frame_cap = CST_FRAME_HEADER + payload;
  }
  info.bytes =
      (uint32_t)cst_lines_payload(b->text, b->len, b->frame + CST_FRAME_HEADER);
  cst_frame_header(b->frame, &info);
  b->len = 0;
  return fwrite(b->frame, 1, CST_FRAME_HEADER + info.bytes, out) ==
         CST_FRAME_HEADER + info.bytes;
}

static bool binary_line(binary_out *b, const char *line, size_t len,
                        FILE *out) {
  if (b->len + len + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : BINARY_FRAME_TEXT + 4096;
    while (cap < b->len + len + 1)
      cap *= 2;
    char *p = realloc(b->text, cap);
    if (!p)
      return false;
    b->text = p;
    b->cap = cap;
  }
  memcpy(b->text + b->len, line, len);
  b->text[b->len + len] = '\n';
  b->len += len + 1;
  return b->len < BINARY_FRAME_TEXT || binary_flush(b, out);
}

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
  binary_out bin = {NULL, 0, 0, NULL, 0};
  bool bin_ok = true;
  if (to_binary) {
    unsigned char head[CST_FILE_HEADER];
    cst_file_header(head, 0);
    fwrite(head, 1, sizeof head, out);
  }
  int got;
  while ((got = tr_next(&tf)) == 1) {
    if (to_binary) {
      bin_ok = bin_ok && binary_line(&bin, tf.line, tf.line_len, out);
    } else {
      fwrite(tf.line, 1, tf.line_len, out);
      fputc('\n', out);
    }
    res->lines++;
  }
  if (to_binary) {
    bin_ok = bin_ok && binary_flush(&bin, out);
    free(bin.text);
    free(bin.frame);
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
