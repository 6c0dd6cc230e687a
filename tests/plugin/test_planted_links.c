/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_planted_links.c — the real plugin in a shared output
 * folder where someone planted links: at every name the plugin writes (the
 * trace file and its numbered variant, the in-flight snapshot written by
 * cclscope_dump(), the Prometheus textfile in each of its three placements)
 * and at the temporary names earlier versions used, a symbolic link or a
 * hard link to a victim file outside the folder. Every victim must keep its
 * content and mode, and the plugin must still write its files, as regular
 * files of its own. A symbolically linked CCLSCOPE_DIR or
 * CCLSCOPE_PROM_DIR is followed with one warning when the link is ours,
 * and refused (nothing written there) when it belongs to another user.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planted_links.h"
#include "plugin_driver.h"

#define RUN "links"
#define HOST "h"
#define OTHER_UID 65534 /* nobody */

typedef enum { PROM_DEFAULT, PROM_FILE, PROM_DIR } prom_placement;

/* Where the victims and the textfile's own folder live: beside the output
 * folder, on the same file system (hard links need that). */
typedef struct {
  driver_t d;
  char root[4096];
  char victims[4200];
  char prom_dir[4200];
} scene_t;

static void clean_environment(void) {
  static const char *const vars[] = {"CCLSCOPE_PROM_FILE",
                                     "CCLSCOPE_PROM_DIR",
                                     "CCLSCOPE_PROM_PORT",
                                     "CCLSCOPE_OTLP_ENDPOINT",
                                     "OTEL_EXPORTER_OTLP_ENDPOINT",
                                     "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
                                     "CCLSCOPE_MODE",
                                     "CCLSCOPE_METRICS_WINDOW",
                                     "CCLSCOPE_PROM_KEEP",
                                     NULL};
  for (int i = 0; vars[i]; i++)
    unsetenv(vars[i]);
}

static void scene_open(scene_t *s, const char *mode) {
  clean_environment();
  setenv("CCLSCOPE_JOB_ID", RUN, 1);
  setenv("CCLSCOPE_HOSTNAME", HOST, 1);
  setenv("CCLSCOPE_MODE", mode, 1);
  setenv("CCLSCOPE_METRICS_WINDOW", "0.05", 1);
  setenv("CCLSCOPE_PROM_KEEP", "1", 1); /* the textfile is read after */
  test_make_tmpdir(s->root, sizeof s->root);
  snprintf(s->victims, sizeof s->victims, "%s/victims", s->root);
  snprintf(s->prom_dir, sizeof s->prom_dir, "%s/prom", s->root);
  assert_int_equal(mkdir(s->victims, 0755), 0);
  assert_int_equal(mkdir(s->prom_dir, 0755), 0);
  log_keeper_clear();
  log_keeper_capture_stderr(); /* the plugin's warnings go to stderr */
  driver_open(&s->d);          /* CCLSCOPE_DIR = s->d.dir */
}

static void scene_close(scene_t *s) {
  log_keeper_count(""); /* collect what is left, and echo it */
  log_keeper_release_stderr();
  assert_int_equal(log_keeper_logger_warnings(), 0);
  driver_cleanup(&s->d);
  test_remove_tree(s->root);
  clean_environment();
  unsetenv("CCLSCOPE_JOB_ID");
  unsetenv("CCLSCOPE_HOSTNAME");
}

static void *init_comm(scene_t *s, int *mask) {
  void *ctx = NULL;
  assert_int_equal(
      s->d.v6->init(&ctx, 0x5eed, mask, "links", 1, 1, 0, log_keeper), 0);
  return ctx;
}

static void *start_coll(scene_t *s, void *ctx) {
  ncclProfilerEventDescr_v6_t e;
  void *h = NULL;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileColl;
  e.coll.func = "AllReduce";
  e.coll.datatype = "ncclFloat32";
  e.coll.count = 1024;
  e.coll.nChannels = 1;
  s->d.v6->startEvent(ctx, &h, &e);
  return h;
}

/* cclscope_dump, found the way a framework finds it. */
static int dump(int timeout_ms) {
  void *lib = dlopen(CCLSCOPE_PLUGIN_PATH, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(lib);
  int (*fn)(int) = (int (*)(int))dlsym(lib, "cclscope_dump");
  assert_non_null(fn);
  int rc = fn(timeout_ms);
  dlclose(lib);
  return rc;
}

/* One communicator, a collective in flight during a dump, then the end:
 * the trace, the snapshot and the last metrics window are all written. */
static int run_plugin(scene_t *s) {
  int mask = 0;
  void *ctx = init_comm(s, &mask);
  if (mask != 0) {
    void *coll = start_coll(s, ctx);
    assert_int_equal(dump(5000), 0);
    s->d.v6->stopEvent(coll);
  }
  s->d.v6->finalize(ctx);
  assert_true(driver_close(&s->d));
  return mask;
}

static void name_in(char *out, size_t outlen, const char *dir, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));
static void name_in(char *out, size_t outlen, const char *dir, const char *fmt,
                    ...) {
  char name[NAME_MAX + 1];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  snprintf(out, outlen, "%s/%s", dir, name);
}

/* The names under attack, for this process and a placement. */
typedef struct {
  char trace[4400], trace1[4400], trace_ours[4400];
  char snapshot[4400], snapshot_old_tmp[4500];
  char prom[4400], prom_old_tmp[4500];
} names_t;

static void names_for(names_t *n, const scene_t *s, prom_placement where) {
  int pid = (int)getpid();
  const char *out = s->d.dir;
  name_in(n->trace, sizeof n->trace, out, "trace_%s_r0_%s_pid%d.jsonl", RUN,
          HOST, pid);
  name_in(n->trace1, sizeof n->trace1, out, "trace_%s_r0_%s_pid%d.1.jsonl", RUN,
          HOST, pid);
  name_in(n->trace_ours, sizeof n->trace_ours, out,
          "trace_%s_r0_%s_pid%d.2.jsonl", RUN, HOST, pid);
  name_in(n->snapshot, sizeof n->snapshot, out, "inflight_%s_r0_%s_pid%d.json",
          RUN, HOST, pid);
  snprintf(n->snapshot_old_tmp, sizeof n->snapshot_old_tmp, "%s.tmp",
           n->snapshot);
  if (where == PROM_DEFAULT)
    name_in(n->prom, sizeof n->prom, out, "metrics_%s_r0_%s_pid%d.prom", RUN,
            HOST, pid);
  else if (where == PROM_FILE)
    name_in(n->prom, sizeof n->prom, s->prom_dir, "custom.prom");
  else
    name_in(n->prom, sizeof n->prom, s->prom_dir, "cclscope_%s_pid%d.prom",
            HOST, pid);
  snprintf(n->prom_old_tmp, sizeof n->prom_old_tmp, "%s.tmp.%d", n->prom, pid);
}

static void assert_still_planted(const char *where, const victim_t *v,
                                 plant_kind kind) {
  struct stat at, victim;
  assert_int_equal(lstat(where, &at), 0);
  if (kind == PLANT_SYMLINK) {
    assert_true(S_ISLNK(at.st_mode));
    return;
  }
  assert_int_equal(stat(v->path, &victim), 0);
  assert_true(at.st_ino == victim.st_ino);
}

static void attack(prom_placement where, plant_kind kind) {
  scene_t s;
  scene_open(&s, "trace,metrics");
  if (where == PROM_FILE) {
    char file[4400];
    snprintf(file, sizeof file, "%s/custom.prom", s.prom_dir);
    setenv("CCLSCOPE_PROM_FILE", file, 1);
  } else if (where == PROM_DIR) {
    setenv("CCLSCOPE_PROM_DIR", s.prom_dir, 1);
  }
  names_t n;
  names_for(&n, &s, where);
  const char *targets[] = {n.trace,    n.trace1,
                           n.snapshot, n.snapshot_old_tmp,
                           n.prom,     n.prom_old_tmp};
  enum { NTARGETS = sizeof targets / sizeof targets[0] };
  victim_t v[NTARGETS];
  for (int i = 0; i < NTARGETS; i++) {
    char tag[16];
    snprintf(tag, sizeof tag, "victim%d", i);
    victim_make(&v[i], s.victims, tag);
    victim_plant(&v[i], kind, targets[i]);
  }

  assert_int_not_equal(run_plugin(&s), 0);

  for (int i = 0; i < NTARGETS; i++)
    victim_assert_intact(&v[i]);
  /* The trace: the taken names are left as they were, ours is the next. */
  assert_still_planted(n.trace, &v[0], kind);
  assert_still_planted(n.trace1, &v[1], kind);
  assert_own_regular_file(n.trace_ours);
  trace_t t;
  assert_true(trace_load(&t, n.trace_ours));
  assert_int_equal(t.bad_lines, 0);
  assert_non_null(trace_find_record(&t, "process"));
  assert_non_null(trace_find_record(&t, "processEnd"));
  trace_free(&t);
  /* The snapshot and the textfile replace what was at their names. */
  assert_own_regular_file(n.snapshot);
  char text[65536];
  read_small_file(n.snapshot, text, sizeof text);
  cJSON *snap = cJSON_Parse(text);
  assert_non_null(snap);
  assert_string_equal(json_str(snap, "reason"), "dump");
  cJSON_Delete(snap);
  assert_own_regular_file(n.prom);
  read_small_file(n.prom, text, sizeof text);
  assert_non_null(strstr(text, "cclscope_plugin_callbacks_total"));
  /* Nothing left behind, nothing said about links. */
  assert_int_equal(count_temporaries(s.d.dir), 0);
  assert_int_equal(count_temporaries(s.prom_dir), 0);
  assert_int_equal(log_keeper_count("symbolic link"), 0);
  scene_close(&s);
}

static void test_symlinks_default_textfile(void **state) {
  (void)state;
  attack(PROM_DEFAULT, PLANT_SYMLINK);
}

static void test_hard_links_default_textfile(void **state) {
  (void)state;
  attack(PROM_DEFAULT, PLANT_HARDLINK);
}

static void test_symlinks_prom_file(void **state) {
  (void)state;
  attack(PROM_FILE, PLANT_SYMLINK);
}

static void test_hard_links_prom_file(void **state) {
  (void)state;
  attack(PROM_FILE, PLANT_HARDLINK);
}

static void test_symlinks_prom_dir(void **state) {
  (void)state;
  attack(PROM_DIR, PLANT_SYMLINK);
}

static void test_hard_links_prom_dir(void **state) {
  (void)state;
  attack(PROM_DIR, PLANT_HARDLINK);
}

/* ---- a symbolically linked folder ---- */

/* `<d.dir>/real` and a link `<d.dir>/link` to it; true if the link could
 * be given to `owner` (only root can). */
static bool linked_folder(const char *base, char *real, size_t reallen,
                          char *link_path, size_t linklen, uid_t owner) {
  snprintf(real, reallen, "%s/real", base);
  snprintf(link_path, linklen, "%s/link", base);
  assert_int_equal(mkdir(real, 0755), 0);
  assert_int_equal(symlink(real, link_path), 0);
  if (owner == geteuid())
    return true;
  if (lchown(link_path, owner, (gid_t)owner) == 0)
    return true;
  /* Not root: say so, and that this is why (never skip silently). */
  assert_int_equal(errno, EPERM);
  assert_int_not_equal(geteuid(), 0);
  print_message("not root: a link owned by uid %u cannot be made here; "
                "test_out_dir checks the rule itself\n",
                (unsigned)owner);
  return false;
}

static void test_linked_dir_of_ours_followed(void **state) {
  (void)state;
  scene_t s;
  scene_open(&s, "trace");
  char real[4400], link_path[4400], resolved[PATH_MAX];
  linked_folder(s.d.dir, real, sizeof real, link_path, sizeof link_path,
                geteuid());
  assert_non_null(realpath(real, resolved));
  setenv("CCLSCOPE_DIR", link_path, 1);
  assert_int_not_equal(run_plugin(&s), 0);
  assert_int_equal(log_keeper_count("is a symbolic link to"), 1);
  const char *w = log_keeper_find("is a symbolic link to");
  char expected[9000];
  snprintf(expected, sizeof expected,
           "CCLSCOPE_DIR '%s' is a symbolic link to '%s'; writing there",
           link_path, resolved);
  assert_non_null(strstr(w, expected));
  char paths[2][4096];
  assert_int_equal(trace_find_files(real, paths, 2), 1);
  assert_own_regular_file(paths[0]);
  scene_close(&s);
}

static void test_linked_dir_of_others_refused(void **state) {
  (void)state;
  scene_t s;
  scene_open(&s, "trace");
  char real[4400], link_path[4400];
  if (!linked_folder(s.d.dir, real, sizeof real, link_path, sizeof link_path,
                     OTHER_UID)) {
    driver_close(&s.d);
    scene_close(&s);
    return;
  }
  setenv("CCLSCOPE_DIR", link_path, 1);
  /* Nothing can be written: the plugin asks NCCL for no events. */
  assert_int_equal(run_plugin(&s), 0);
  assert_int_equal(log_keeper_count("symbolic link"), 1);
  const char *w = log_keeper_find("owned by uid 65534");
  assert_non_null(w);
  assert_non_null(strstr(w, "CCLSCOPE_DIR"));
  assert_non_null(strstr(w, link_path));
  assert_non_null(strstr(w, "nothing is written there"));
  assert_int_equal(count_entries(real), 0);
  scene_close(&s);
}

static void test_linked_prom_dir_of_ours_followed(void **state) {
  (void)state;
  scene_t s;
  scene_open(&s, "metrics");
  char real[4400], link_path[4400], resolved[PATH_MAX], file[4400];
  linked_folder(s.prom_dir, real, sizeof real, link_path, sizeof link_path,
                geteuid());
  assert_non_null(realpath(real, resolved));
  setenv("CCLSCOPE_PROM_DIR", link_path, 1);
  assert_int_not_equal(run_plugin(&s), 0);
  assert_int_equal(log_keeper_count("is a symbolic link to"), 1);
  const char *w = log_keeper_find("is a symbolic link to");
  assert_non_null(strstr(w, link_path));
  assert_non_null(strstr(w, resolved));
  name_in(file, sizeof file, real, "cclscope_%s_pid%d.prom", HOST,
          (int)getpid());
  assert_own_regular_file(file);
  scene_close(&s);
}

static void test_linked_prom_dir_of_others_refused(void **state) {
  (void)state;
  scene_t s;
  scene_open(&s, "trace,metrics");
  char real[4400], link_path[4400];
  if (!linked_folder(s.prom_dir, real, sizeof real, link_path, sizeof link_path,
                     OTHER_UID)) {
    driver_close(&s.d);
    scene_close(&s);
    return;
  }
  setenv("CCLSCOPE_PROM_DIR", link_path, 1);
  assert_int_not_equal(run_plugin(&s), 0); /* the trace goes on */
  assert_int_equal(log_keeper_count("symbolic link"), 1);
  const char *w = log_keeper_find("owned by uid 65534");
  assert_non_null(w);
  assert_non_null(strstr(w, link_path));
  assert_int_equal(count_entries(real), 0);
  char paths[2][4096];
  assert_int_equal(trace_find_files(s.d.dir, paths, 2), 1);
  scene_close(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_symlinks_default_textfile),
      cmocka_unit_test(test_hard_links_default_textfile),
      cmocka_unit_test(test_symlinks_prom_file),
      cmocka_unit_test(test_hard_links_prom_file),
      cmocka_unit_test(test_symlinks_prom_dir),
      cmocka_unit_test(test_hard_links_prom_dir),
      cmocka_unit_test(test_linked_dir_of_ours_followed),
      cmocka_unit_test(test_linked_dir_of_others_refused),
      cmocka_unit_test(test_linked_prom_dir_of_ours_followed),
      cmocka_unit_test(test_linked_prom_dir_of_others_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
