/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_inputs.c — which files `cclscope hang` reads: in a folder,
 * its in-flight snapshots (inflight_*.json) and trace files (*.jsonl),
 * found in its subfolders too in name order (read/input_walk.h: each file
 * once); a file argument by its suffix (.json: a snapshot, anything else:
 * a trace). Unlike tr_inputs_collect, a folder without traces is fine (the
 * snapshots may be all there is).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hang/hang.h"
#include "read/input_walk.h"

enum { KIND_SNAPSHOT = 0, KIND_TRACE = 1 };

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A folder entry: an in-flight snapshot, a trace, or neither. */
static int hang_kind(const char *name) {
  if (strncmp(name, "inflight_", 9) == 0 && ends_with(name, ".json"))
    return KIND_SNAPSHOT;
  return tr_is_trace_name(name) ? KIND_TRACE : -1;
}

bool hang_inputs_collect(hang_inputs *in, int argc, char **argv) {
  tr_inputs lists[2]; /* KIND_SNAPSHOT, KIND_TRACE */
  memset(lists, 0, sizeof lists);
  memset(in, 0, sizeof *in);
  input_walk w;
  iw_init(&w, lists, 2, hang_kind);
  bool ok = true;
  for (int i = 0; ok && i < argc; i++) {
    struct stat st;
    size_t matched;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "cclscope: cannot open '%s': %s\n", argv[i],
              strerror(errno));
      ok = false;
    } else if (S_ISDIR(st.st_mode)) {
      ok = iw_folder(&w, argv[i], &matched);
    } else {
      ok = iw_file(&w, argv[i], &st,
                   ends_with(argv[i], ".json") ? KIND_SNAPSHOT : KIND_TRACE);
    }
  }
  iw_free(&w);
  in->snapshots = lists[KIND_SNAPSHOT];
  in->traces = lists[KIND_TRACE];
  if (!ok)
    hang_inputs_free(in);
  return ok;
}

void hang_inputs_free(hang_inputs *in) {
  tr_inputs_free(&in->snapshots);
  tr_inputs_free(&in->traces);
}
