/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_control.c — the runtime control API
 * (include/cclscope/control.h) through the real library, found the way a
 * framework finds it (dlopen RTLD_NOLOAD + dlsym, NCCL having loaded the
 * plugin RTLD_LOCAL): pause and resume rewrite NCCL's activation mask,
 * marks and steps land in the trace and the metrics, a dump writes the
 * in-flight snapshot before it returns, CCLSCOPE_START=paused, and calls
 * made while no communicator exists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cclscope/control.h"
#include "plugin_driver.h"

typedef struct {
  int (*start)(void);
  int (*stop)(void);
  int (*is_recording)(void);
  int (*step)(int64_t);
  int (*mark)(const char *);
  int (*dump)(int);
  const char *(*version)(void);
} control_api;

/* What a framework does: find the already-loaded plugin by name. */
static void find_api(control_api *api) {
  void *lib = dlopen(CCLSCOPE_PLUGIN_PATH, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(lib);
  api->start = (int (*)(void))dlsym(lib, "cclscope_start");
  api->stop = (int (*)(void))dlsym(lib, "cclscope_stop");
  api->is_recording = (int (*)(void))dlsym(lib, "cclscope_is_recording");
  api->step = (int (*)(int64_t))dlsym(lib, "cclscope_step");
  api->mark = (int (*)(const char *))dlsym(lib, "cclscope_mark");
  api->dump = (int (*)(int))dlsym(lib, "cclscope_dump");
  api->version = (const char *(*)(void))dlsym(lib, "cclscope_version");
  assert_true(api->start && api->stop && api->is_recording && api->step &&
              api->mark && api->dump && api->version);
  dlclose(lib); /* drops the NOLOAD reference only */
}

static void *init_comm(driver_t *d, int *mask) {
  void *ctx = NULL;
  assert_int_equal(d->v6->init(&ctx, 0xc0ffee, mask, "ctl", 1, 2, 0, NULL), 0);
  return ctx;
}

static void *start_coll(driver_t *d, void *ctx, uint64_t seq) {
  ncclProfilerEventDescr_v6_t e;
  void *h;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileColl;
  e.coll.func = "AllReduce";
  e.coll.datatype = "ncclFloat32";
  e.coll.count = 1024;
  e.coll.seqNumber = seq;
  e.coll.nChannels = 1;
  d->v6->startEvent(ctx, &h, &e);
  return h;
}

static size_t count_marks(const trace_t *t, const char *kind) {
  size_t n = 0;
  for (size_t i = 0; i < t->count; i++)
    if (json_str(t->lines[i], "recordType") &&
        strcmp(json_str(t->lines[i], "recordType"), "mark") == 0 &&
        strcmp(json_str(t->lines[i], "kind"), kind) == 0)
      n++;
  return n;
}

static void test_pause_resume_marks(void **state) {
  (void)state;
  setenv("CCLSCOPE_MODE", "trace,metrics", 1);
  driver_t d;
  driver_open(&d);
  char prom[4200];
  snprintf(prom, sizeof prom, "%s/metrics.prom", d.dir);
  setenv("CCLSCOPE_PROM_FILE", prom, 1);
  setenv("CCLSCOPE_PROM_KEEP", "1", 1); /* read after the run */
  control_api api;
  find_api(&api);
  assert_string_equal(api.version(), CCLSCOPE_VERSION);
  int mask = 0;
  void *ctx = init_comm(&d, &mask);
  int recording_mask = mask;
  assert_int_not_equal(recording_mask, 0);
  assert_int_equal(api.is_recording(), 1);

  assert_int_equal(api.step(-1), 0); /* step 0 */
  void *c = start_coll(&d, ctx, 0);
  d.v6->stopEvent(c);
  usleep(20000);
  assert_int_equal(api.step(-1), 0); /* step 1 */
  assert_int_equal(api.step(41000), 0);
  assert_int_equal(api.mark("checkpoint"), 0);

  assert_int_equal(api.stop(), 0);
  assert_int_equal(mask, 0); /* NCCL stops calling us */
  assert_int_equal(api.is_recording(), 0);
  assert_int_equal(api.start(), 0);
  assert_int_equal(mask, recording_mask);
  assert_int_equal(api.is_recording(), 1);

  /* A dump returns once the snapshot exists; it lists the Coll in flight
   * (not stopped). */
  void *open = start_coll(&d, ctx, 1);
  assert_int_equal(api.dump(5000), 0);
  DIR *dir = opendir(d.dir);
  assert_non_null(dir);
  struct dirent *ent;
  char snap[4400] = "";
  while ((ent = readdir(dir)))
    if (strncmp(ent->d_name, "inflight_", 9) == 0 &&
        !strstr(ent->d_name, ".tmp"))
      snprintf(snap, sizeof snap, "%s/%s", d.dir, ent->d_name);
  closedir(dir);
  assert_true(snap[0]);
  FILE *f = fopen(snap, "r");
  assert_non_null(f);
  char text[65536];
  size_t len = fread(text, 1, sizeof text - 1, f);
  text[len] = '\0';
  fclose(f);
  cJSON *s = cJSON_Parse(text);
  assert_non_null(s);
  assert_string_equal(json_str(s, "reason"), "dump");
  const cJSON *ops = cJSON_GetObjectItem(s, "operations");
  assert_int_equal(cJSON_GetArraySize(ops), 1);
  assert_string_equal(json_str(cJSON_GetArrayItem(ops, 0), "func"),
                      "AllReduce");
  cJSON_Delete(s);
  d.v6->stopEvent(open);
  d.v6->finalize(ctx);

  /* After the last finalize nothing records: the calls say so. */
  assert_int_equal(api.step(-1), -1);
  assert_int_equal(api.dump(100), -1);

  trace_t t;
  driver_load_single_trace(&d, &t);
  assert_int_equal(count_marks(&t, "step"), 3);
  assert_int_equal(count_marks(&t, "label"), 1);
  assert_int_equal(count_marks(&t, "pause"), 1);
  assert_int_equal(count_marks(&t, "resume"), 1);
  assert_int_equal(count_marks(&t, "dump"), 1);
  bool saw_41000 = false;
  for (size_t i = 0; i < t.count; i++)
    if (json_num(t.lines[i], "step") == 41000)
      saw_41000 = true;
  assert_true(saw_41000);
  trace_free(&t);

  /* Metrics: the latest step, and the step-to-step durations. */
  f = fopen(prom, "r");
  assert_non_null(f);
  len = fread(text, 1, sizeof text - 1, f);
  text[len] = '\0';
  fclose(f);
  char *g = strstr(text, "\ncclscope_step{");
  assert_non_null(g);
  assert_non_null(strstr(g, "} 41000\n"));
  char *cnt = strstr(text, "\ncclscope_step_duration_seconds_count{");
  assert_non_null(cnt);
  assert_non_null(strstr(cnt, "} 2\n"));
  driver_close(&d);
  driver_cleanup(&d);
  unsetenv("CCLSCOPE_PROM_FILE");
  unsetenv("CCLSCOPE_PROM_KEEP");
  unsetenv("CCLSCOPE_MODE");
}

static void test_start_paused(void **state) {
  (void)state;
  setenv("CCLSCOPE_START", "paused", 1);
  driver_t d;
  driver_open(&d);
  control_api api;
  find_api(&api);
  int mask = -1;
  void *ctx = init_comm(&d, &mask);
  assert_int_equal(mask, 0);
  assert_int_equal(api.is_recording(), 0);
  assert_int_equal(api.start(), 0);
  assert_int_not_equal(mask, 0);
  d.v6->finalize(ctx);
  trace_t t;
  driver_load_single_trace(&d, &t);
  assert_int_equal(count_marks(&t, "pause"), 1); /* "CCLSCOPE_START=paused" */
  assert_int_equal(count_marks(&t, "resume"), 1);
  trace_free(&t);
  driver_close(&d);
  driver_cleanup(&d);
  unsetenv("CCLSCOPE_START");
}

static void test_calls_before_init(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  control_api api;
  find_api(&api);
  /* No communicator yet: nothing to mark or dump; a stop is remembered. */
  assert_int_equal(api.step(1), -1);
  assert_int_equal(api.mark("x"), -1);
  assert_int_equal(api.dump(100), -1);
  assert_int_equal(api.is_recording(), 0);
  assert_int_equal(api.stop(), -1);
  int mask = -1;
  void *ctx = init_comm(&d, &mask);
  assert_int_equal(mask, 0); /* starts paused, as asked */
  assert_int_equal(api.start(), 0);
  assert_int_not_equal(mask, 0);
  assert_int_equal(api.mark(NULL), 0); /* NULL label: harmless */
  d.v6->finalize(ctx);
  driver_close(&d);
  driver_cleanup(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pause_resume_marks),
      cmocka_unit_test(test_start_paused),
      cmocka_unit_test(test_calls_before_init),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
