/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_warnings_printable.c — no control character reaches
 * stderr, whatever the environment holds (docs/configuration.md, "How
 * values are read"). One table row per variable whose value a message can
 * quote: each sets that variable to a value full of control characters
 * (ESC, CR, LF, DEL, ^A) in a child process that loads the real plugin,
 * initializes a communicator, records a collective and finalizes, with its
 * stderr in a file. The file must hold the message that quotes the value
 * (so the row proves something) and no byte below 0x20 but the newline
 * ending each line, and no 0x7F.
 *
 * Every variable named in docs/configuration.md's tables is either a row
 * here or listed in `never_quoted` with the reason: a variable added to
 * the docs without a row fails the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nccl/profiler.h"
#include "trace_read.h"

#ifndef CCLSCOPE_DOCS_CONFIGURATION
#error "CCLSCOPE_DOCS_CONFIGURATION must name docs/configuration.md"
#endif

/* Invalid for every numeric or enumerated variable. */
#define HOSTILE "1\x1b[31m\r\nX-Injected: 1\x7f\x01"
/* A path that cannot be made, even by root: BLOCKER stands for a regular
 * file in the row's folder. */
#define BLOCKER "@"
#define HOSTILE_PATH BLOCKER "/\x1b[2J\r\nX\x7f/sub"
/* An OTLP endpoint nothing listens on (port 1: refused at once). */
#define DEAD_ENDPOINT "CCLSCOPE_OTLP_ENDPOINT=http://127.0.0.1:1/v1/metrics"

enum { MAX_EXTRA = 4 };

typedef struct {
  const char *var;              /* the variable whose value is quoted */
  const char *value;            /* NULL: HOSTILE; a leading BLOCKER is
                                   replaced by the file's path */
  const char *extra[MAX_EXTRA]; /* VAR=VALUE the message needs */
  const char *expect;           /* in stderr once it is quoted; NULL: var */
} quoted_case;

static const quoted_case cases[] = {
    /* The numeric and enumerated variables (config.c, warn_bad). */
    {"CCLSCOPE_MODE", NULL, {NULL}, NULL},
    {"CCLSCOPE_MASK", NULL, {NULL}, NULL},
    {"NCCL_PROFILE_EVENT_MASK", NULL, {NULL}, NULL},
    {"CCLSCOPE_RING_SIZE", NULL, {NULL}, NULL},
    {"CCLSCOPE_RECLAIM_TIMEOUT", NULL, {NULL}, NULL},
    {"CCLSCOPE_FLUSH_INTERVAL", NULL, {NULL}, NULL},
    {"CCLSCOPE_TIMING_TIMEOUT", NULL, {NULL}, NULL},
    {"CCLSCOPE_MAX_INFLIGHT", NULL, {NULL}, NULL},
    {"CCLSCOPE_METRICS_WINDOW", NULL, {NULL}, NULL},
    {"CCLSCOPE_METRICS_MAX_SERIES", NULL, {NULL}, NULL},
    {"CCLSCOPE_PROM_ADDR", NULL, {NULL}, NULL},
    {"CCLSCOPE_PROM_PORT", NULL, {NULL}, NULL},
    {"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", NULL, {NULL}, NULL},
    {"OTEL_EXPORTER_OTLP_TIMEOUT", NULL, {NULL}, NULL},
    {"RANK", NULL, {NULL}, NULL},
    {"SLURM_PROCID", NULL, {NULL}, NULL},
    {"OMPI_COMM_WORLD_RANK", NULL, {NULL}, NULL},
    {"PMIX_RANK", NULL, {NULL}, NULL},
    {"PMI_RANK", NULL, {NULL}, NULL},
    {"LOCAL_RANK", NULL, {NULL}, NULL},
    {"SLURM_LOCALID", NULL, {NULL}, NULL},
    {"OMPI_COMM_WORLD_LOCAL_RANK", NULL, {NULL}, NULL},
    {"MPI_LOCALRANKID", NULL, {NULL}, NULL},
    {"WORLD_SIZE", NULL, {NULL}, NULL},
    {"SLURM_NTASKS", NULL, {NULL}, NULL},
    {"OMPI_COMM_WORLD_SIZE", NULL, {NULL}, NULL},
    {"PMI_SIZE", NULL, {NULL}, NULL},
    {"CCLSCOPE_EXIT_DEADLINE", NULL, {NULL}, NULL},
    {"CCLSCOPE_SUMMARY", NULL, {NULL}, NULL},
    {"CCLSCOPE_CLOCK", NULL, {NULL}, NULL},
    {"CCLSCOPE_DIRECT_IO", NULL, {NULL}, NULL},
    {"CCLSCOPE_HOST", NULL, {NULL}, NULL},
    {"CCLSCOPE_SAMPLE", NULL, {NULL}, NULL},
    {"CCLSCOPE_SAMPLE_P2P", NULL, {NULL}, NULL},
    {"CCLSCOPE_SAMPLE_STEPS", NULL, {NULL}, NULL},
    {"CCLSCOPE_MIN_BYTES", NULL, {NULL}, NULL},
    {"CCLSCOPE_START", NULL, {NULL}, NULL},
    {"CCLSCOPE_HANG_TIMEOUT", NULL, {NULL}, NULL},
    {"CCLSCOPE_NVTX", NULL, {NULL}, NULL},
    {"CCLSCOPE_CUPTI", NULL, {NULL}, NULL},
    {"CCLSCOPE_ROCTX", NULL, {NULL}, NULL},
    {"CCLSCOPE_METRICS_GLOBAL_RANK", NULL, {NULL}, NULL},
    {"CCLSCOPE_METRICS_WINDOW_EVENTS", NULL, {NULL}, NULL},
    {"NCCL_PROFILER_OTEL_TELEMETRY_INTERVAL_SEC", NULL, {NULL}, NULL},
    {"CCLSCOPE_PROM_KEEP", NULL, {NULL}, NULL},
    {"CCLSCOPE_COMPRESS", NULL, {NULL}, NULL},
    {"CCLSCOPE_FORMAT", NULL, {NULL}, NULL},
    /* The OTLP push (metrics/otlp_env.c). */
    {"OTEL_EXPORTER_OTLP_PROTOCOL",
     NULL,
     {"CCLSCOPE_MODE=metrics", DEAD_ENDPOINT},
     NULL},
    {"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
     NULL,
     {"CCLSCOPE_MODE=metrics", DEAD_ENDPOINT},
     NULL},
    {"OTEL_EXPORTER_OTLP_COMPRESSION",
     NULL,
     {"CCLSCOPE_MODE=metrics", DEAD_ENDPOINT},
     NULL},
    {"OTEL_EXPORTER_OTLP_METRICS_COMPRESSION",
     NULL,
     {"CCLSCOPE_MODE=metrics", DEAD_ENDPOINT},
     NULL},
    {"OTEL_EXPORTER_OTLP_HEADERS",
     "X\x1b[2J\r\n\x7f=1,a=b%0d%0aX-Injected: 1",
     {"CCLSCOPE_MODE=metrics", DEAD_ENDPOINT},
     NULL},
    {"OTEL_EXPORTER_OTLP_METRICS_HEADERS",
     "X\x1b[2J\r\n\x7f=1,a=b%0d%0aX-Injected: 1",
     {"CCLSCOPE_MODE=metrics", DEAD_ENDPOINT},
     NULL},
    {"CCLSCOPE_OTLP_ENDPOINT",
     "http://127.0.0.1:1/v1/metrics\x1b[2J\r\nX-Injected: 1\x7f",
     {"CCLSCOPE_MODE=metrics"},
     NULL},
    {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
     "http://127.0.0.1:1/v1/metrics\x1b[2J\r\nX-Injected: 1\x7f",
     {"CCLSCOPE_MODE=metrics"},
     NULL},
    {"OTEL_EXPORTER_OTLP_ENDPOINT",
     "http://127.0.0.1:1\x1b[2J\r\nX-Injected: 1\x7f",
     {"CCLSCOPE_MODE=metrics"},
     NULL},
    /* Libraries named by the user (optional_lib.c). */
    {"CCLSCOPE_ZSTD_LIBRARY",
     HOSTILE_PATH,
     {"CCLSCOPE_COMPRESS=zstd"},
     "no usable libzstd"},
    {"CCLSCOPE_CUPTI_LIBRARY",
     HOSTILE_PATH,
     {"CCLSCOPE_CUPTI=1"},
     "no usable CUPTI library"},
    {"CCLSCOPE_ROCTX_LIBRARY",
     HOSTILE_PATH,
     {"CCLSCOPE_ROCTX=force"},
     "no usable ROCTX library"},
    /* Paths (out_dir.c, prom_textfile.c). */
    {"CCLSCOPE_DIR", HOSTILE_PATH, {NULL}, "CCLSCOPE_DIR '"},
    {"CCLSCOPE_PROM_FILE",
     HOSTILE_PATH,
     {"CCLSCOPE_MODE=metrics"},
     "textfile folder '"},
    {"CCLSCOPE_PROM_DIR",
     HOSTILE_PATH,
     {"CCLSCOPE_MODE=metrics"},
     "textfile folder '"},
    /* The host name starts every warning line; CCLSCOPE_SAMPLE=0 makes
     * one. */
    {"CCLSCOPE_HOSTNAME",
     "node\x1b[2J\r\n\x7f",
     {"CCLSCOPE_SAMPLE=0"},
     "NCCL WARN cclscope: CCLSCOPE_SAMPLE="},
};
enum { N_CASES = sizeof cases / sizeof cases[0] };

/* Documented variables no message ever quotes, and why. */
static const struct {
  const char *var, *why;
} never_quoted[] = {
    {"CCLSCOPE_JOB_ID", "becomes a file name: [A-Za-z0-9._-] only"},
    {"OTEL_SERVICE_NAME", "sent in the body (escaped), never in a message"},
    {"OTEL_RESOURCE_ATTRIBUTES", "sent in the body, never in a message"},
};

/* What every child gets (its environment is cleared first). */
static const char *const base_environment[] = {
    "NCCL_DEBUG=INFO", /* information messages reach stderr too */
    "CCLSCOPE_EXIT_DEADLINE=0.2",
};

/* ---- the child: the plugin as NCCL uses it, stderr into a file ---- */

static void record_one_collective(ncclProfiler_v6_t *p, void *ctx) {
  ncclProfilerEventDescr_v6_t d;
  void *coll = NULL;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileColl;
  d.rank = 3;
  d.coll.func = "AllReduce";
  d.coll.datatype = "ncclFloat32";
  d.coll.count = 1024;
  d.coll.nChannels = 1;
  d.coll.algo = "RING";
  d.coll.proto = "SIMPLE";
  p->startEvent(ctx, &coll, &d);
  if (coll)
    p->stopEvent(coll);
}

/* Never returns: exits 0 when the plugin could be driven. */
static void run_child(const quoted_case *c, const char *dir,
                      const char *blocker, const char *stderr_path) {
  int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
    _exit(10);
  clearenv();
  for (size_t i = 0; i < sizeof base_environment / sizeof base_environment[0];
       i++)
    putenv((char *)base_environment[i]);
  setenv("CCLSCOPE_DIR", dir, 1);
  for (int i = 0; i < MAX_EXTRA && c->extra[i]; i++)
    putenv((char *)c->extra[i]);
  const char *value = c->value ? c->value : HOSTILE;
  char path[8192];
  if (value[0] == BLOCKER[0]) {
    snprintf(path, sizeof path, "%s%s", blocker, value + 1);
    value = path;
  }
  setenv(c->var, value, 1);
  void *lib = dlopen(CCLSCOPE_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    _exit(11);
  ncclProfiler_v6_t *p = dlsym(lib, "ncclProfiler_v6");
  if (!p)
    _exit(12);
  void *ctx = NULL;
  int mask = 0;
  if (p->init(&ctx, 0x51, &mask, "printable", 1, 8, 3, NULL) != ncclSuccess)
    _exit(13);
  if (ctx)
    record_one_collective(p, ctx);
  usleep(100000); /* a metrics window closes, a push is tried */
  if (ctx)
    p->finalize(ctx);
  _exit(0);
}

/* ---- the parent ---- */

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t cap = 1 << 16, n = 0;
  char *text = malloc(cap + 1);
  assert_non_null(text);
  size_t got;
  while ((got = fread(text + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      text = realloc(text, cap + 1);
      assert_non_null(text);
    }
  }
  fclose(f);
  text[n] = '\0';
  *len = n;
  return text;
}

/* Runs row `c`; false with the reason in `why` when it fails. */
static bool check_case(const quoted_case *c, char *why, size_t whylen) {
  char dir[4000], out[4100], blocker[4100], stderr_path[4100];
  test_make_tmpdir(dir, sizeof dir);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(blocker, sizeof blocker, "%s/blocker", dir);
  snprintf(stderr_path, sizeof stderr_path, "%s/stderr", dir);
  FILE *f = fopen(blocker, "w");
  assert_non_null(f);
  fclose(f);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0)
    run_child(c, out, blocker, stderr_path);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  size_t len;
  char *text = read_file(stderr_path, &len);
  const char *expect = c->expect ? c->expect : c->var;
  why[0] = '\0';
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    snprintf(why, whylen, "the child ended with status 0x%x", status);
  else if (!strstr(text, expect))
    snprintf(why, whylen, "no message with '%s'", expect);
  for (size_t i = 0; i < len && !why[0]; i++) {
    unsigned char b = (unsigned char)text[i];
    if ((b < 0x20 && b != '\n') || b == 0x7F)
      snprintf(why, whylen, "byte 0x%02x reached stderr at offset %zu", b, i);
  }
  if (why[0])
    print_message("--- %s: %s; its stderr:\n%s\n", c->var, why, text);
  free(text);
  test_remove_tree(dir);
  return !why[0];
}

/* One child per row; every failing row is reported. */
static void no_control_character_reaches_stderr(void **state) {
  (void)state;
  int failed = 0;
  char failures[4096] = "";
  for (int i = 0; i < N_CASES; i++) {
    char why[256];
    if (check_case(&cases[i], why, sizeof why))
      continue;
    failed++;
    size_t used = strlen(failures);
    snprintf(failures + used, sizeof failures - used, "\n  %s: %s",
             cases[i].var, why);
  }
  if (failed)
    fail_msg("%d of %d rows failed:%s", failed, N_CASES, failures);
}

/* Every variable the docs' tables name has a row or a reason. */
static void every_documented_variable_is_covered(void **state) {
  (void)state;
  size_t len;
  char *docs = read_file(CCLSCOPE_DOCS_CONFIGURATION, &len);
  int documented = 0;
  for (char *line = strtok(docs, "\n"); line; line = strtok(NULL, "\n")) {
    char name[128];
    if (sscanf(line, "| `%127[A-Z0-9_]`", name) != 1)
      continue;
    documented++;
    bool covered = false;
    for (int i = 0; i < N_CASES && !covered; i++)
      covered = strcmp(cases[i].var, name) == 0;
    for (size_t i = 0; i < sizeof never_quoted / sizeof never_quoted[0]; i++)
      covered = covered || strcmp(never_quoted[i].var, name) == 0;
    if (!covered)
      fail_msg("%s is documented but has no row here (nor a reason in "
               "never_quoted)",
               name);
  }
  free(docs);
  if (documented < 40)
    fail_msg("read only %d variables from %s", documented,
             CCLSCOPE_DOCS_CONFIGURATION);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_documented_variable_is_covered),
      cmocka_unit_test(no_control_character_reaches_stderr),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
