/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_seed_real.c — minimal_profiler files as its real writer
 * writes them (docs/trace-format.md "Reading minimal_profiler traces"),
 * read through the read layer: lifecycle lines without recordType and
 * myPid (the first line of a file), GPU UUIDs printed from signed bytes,
 * `dtype`, `warps`, KernelCh `channel`, a Coll's `parentGroup`, CUPTI
 * activity records tied to their KernelLaunch by extCorrId, and the
 * derived timing records: bytes = count x datatype size, the duration from
 * the KernelCh stamps (placed on the host clock by the CUPTI kernel), else
 * the CUPTI kernel, else the enqueue span without a bandwidth.
 *
 * The trace: one process (pid 7) driving two GPUs, communicator 42 of two
 * ranks. GroupApi 0x100 holds both ranks' AllReduce (CollApis 0x200,
 * 0x210) and their KernelLaunches (extCorrId 1, 2). Rank 0's kernel has two
 * KernelCh channels: GPU clock = host - 5975 us; channels start at pTimer
 * 7 000 000 and 7 000 500 ns and stop at 7 200 000 and 7 250 000, seen by
 * the host 75 to 52 us late; its CUPTI kernel starts at host 1025.0 us.
 * Rank 1 has no KernelCh: only its CUPTI kernel (1045.0 -> 1285.0). A
 * second AllReduce of rank 0 in another GroupApi (0x110) has neither: it
 * must not take the first group's kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_dir.h"

#include "read/trace_reader.h"
#include "read/trace_record.h"

static char *dir; /* the group's temporary folder (test_dir.h) */

static int make_dir(void **state) {
  (void)state;
  tr_format_notices = false;
  dir = test_dir_make("seed-real");
  return dir ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  return test_dir_remove();
}

typedef struct {
  char *line[64];
  size_t n;
  tr_format format;
} yielded;

static void read_all(const char *name, const char *text, yielded *y) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  memset(y, 0, sizeof *y);
  tr_file tf;
  assert_int_equal(tr_open(&tf, path, 4096), 0);
  y->format = tf.format;
  while (tr_next(&tf) == 1) {
    assert_true(y->n < 64);
    y->line[y->n++] = strndup(tf.line, tf.line_len);
  }
  tr_close(&tf);
}

static void free_all(yielded *y) {
  for (size_t i = 0; i < y->n; i++)
    free(y->line[i]);
}

/* The only yielded line that contains every one of `a`, `b` (NULL: no
 * second), failing unless there is exactly one. */
static const char *the_line(const yielded *y, const char *a, const char *b) {
  const char *found = NULL;
  for (size_t i = 0; i < y->n; i++)
    if (strstr(y->line[i], a) && (!b || strstr(y->line[i], b))) {
      assert_null(found);
      found = y->line[i];
    }
  assert_non_null(found);
  return found;
}

static size_t count_lines(const yielded *y, const char *a) {
  size_t n = 0;
  for (size_t i = 0; i < y->n; i++)
    n += strstr(y->line[i], a) != NULL;
  return n;
}

/* The id of the event whose line has `a` and `b`: "0x…" into buf. */
static const char *id_of(const yielded *y, const char *a, const char *b,
                         char *buf, size_t cap) {
  const char *l = the_line(y, a, b);
  const char *id = strstr(l, "\"id\":\"");
  assert_non_null(id);
  id += 6;
  size_t n = strcspn(id, "\"");
  assert_true(n < cap);
  memcpy(buf, id, n);
  buf[n] = '\0';
  return buf;
}

#define POINT(ts, tid) "{\"ts\":" ts ",\"pid\":7,\"tid\":" tid "}"

/* A lifecycle line as real files write it: no recordType, no myPid. */
#define LIFE(func, rank, uuid, ts)                                             \
  "{\"type\":\"ProfilerLifecycle\",\"func\":\"" func "\",\"gpuUuid\":\"" uuid  \
  "\",\"commId\":42,\"rank\":" rank                                            \
  ",\"start\":" POINT(ts, "7") ",\"stop\":" POINT(                             \
      ts, "7") ",\"duration\":0.0,\"details\":{"                               \
               "\"nranks\":2,\"commName\":\"\",\"eventMask\":4095}}\n"

#define EV(type, rank, uuid, addr, parent, start, stop, tid, extra, details)   \
  "{\"recordType\":\"event\",\"type\":\"" type "\",\"gpuUuid\":\"" uuid        \
  "\",\"commId\":42,\"rank\":" rank                                            \
  ",\"start\":" POINT(start, tid) ",\"stop\":" POINT(                          \
      stop, tid) ",\"duration\":1.0," extra "\"parentObj\":\"" parent          \
                 "\",\"eventAddr\":\"" addr "\",\"ctx\":\"0x1" rank "\","      \
                 "\"details\":" details "}\n"

#define KC_STOP(addr, ts, ptimer)                                              \
  "{\"recordType\":\"state\",\"eventAddr\":\"" addr "\",\"ts\":" ts            \
  ",\"name\":\"KernelChStop\",\"id\":22,\"pid\":7,\"tid\":8,"                  \
  "\"pTimer\":" ptimer "}\n"

#define KERNEL(ext, corr, device, stream, start, stop)                         \
  "{\"recordType\":\"cuptiActivity\",\"type\":\"KERNEL\",\"extCorrId\":" ext   \
  ",\"corrId\":" corr ",\"gpuUuid\":\"ffffffd4-1\",\"deviceId\":" device       \
  ",\"start\":" POINT(start, "70") ",\"stop\":" POINT(                         \
      stop, "70") ",\"duration\":1.0,\"name\":\"_Z19ncclDevKernel_Sum_"        \
                  "f324ArgsILm4EE\","                                          \
                  "\"stream\":\"" stream "\",\"details\":{\"gridX\":2}}\n"

#define U0 "ffffffd4-1"
#define U1 "47ffffffb9-2"
#define COLL_DETAILS(seq, group)                                               \
  "{\"func\":\"AllReduce\",\"seq\":" seq ",\"algo\":\"RING\",\"proto\":"       \
  "\"SIMPLE\",\"channels\":2,\"warps\":8,\"count\":1048576,\"root\":0,"        \
  "\"dtype\":\"ncclFloat32\",\"parentGroup\":\"" group "\"}"
#define API_DETAILS                                                            \
  "{\"func\":\"AllReduce\",\"count\":1048576,\"dtype\":\"ncclFloat32\","       \
  "\"root\":0,\"stream\":\"0x5\",\"graphCaptured\":false}"

#define HEAD                                                                   \
  LIFE("ProfilerInit", "0", U0, "1000.0")                                      \
  LIFE("ProfilerInit", "1", U1, "1000.5")                                      \
  EV("ncclProfileCollApi", "0", U0, "0x200", "0x100", "1010.0", "1011.0", "7", \
     "", API_DETAILS)                                                          \
  EV("ncclProfileCollApi", "1", U1, "0x210", "0x100", "1012.0", "1013.0", "7", \
     "", API_DETAILS)                                                          \
  EV("ncclProfileKernelLaunch", "0", U0, "0x300", "0x100", "1020.0", "1030.0", \
     "7", "\"extCorrId\":1,", "{\"stream\":\"0x5\"}")                          \
  EV("ncclProfileGroup", "0", U0, "0x400", "null", "1031.0", "1040.0", "7",    \
     "", "{}")                                                                 \
  EV("ncclProfileColl", "0", U0, "0x500", "0x200", "1032.0", "1035.0", "7",    \
     "", COLL_DETAILS("0", "0x400"))                                           \
  EV("ncclProfileKernelLaunch", "1", U1, "0x310", "0x100", "1041.0", "1050.0", \
     "7", "\"extCorrId\":2,", "{\"stream\":\"0x6\"}")                          \
  EV("ncclProfileGroup", "1", U1, "0x410", "null", "1051.0", "1060.0", "7",    \
     "", "{}")                                                                 \
  EV("ncclProfileColl", "1", U1, "0x510", "0x210", "1052.0", "1055.0", "7",    \
     "", COLL_DETAILS("0", "0x410"))                                           \
  EV("ncclProfileGroupApi", "0", U0, "0x100", "null", "1005.0", "1070.0", "7", \
     "", "{\"depth\":1,\"graphCaptured\":false}")                              \
  KC_STOP("0x600", "1300.0", "7200000")                                        \
  EV("ncclProfileKernelCh", "0", U0, "0x600", "0x500", "1100.0", "1301.0",     \
     "8", "", "{\"channel\":0,\"pTimer\":7000000}")                            \
  KC_STOP("0x610", "1302.0", "7250000")                                        \
  EV("ncclProfileKernelCh", "0", U0, "0x610", "0x500", "1101.0", "1303.0",     \
     "8", "", "{\"channel\":1,\"pTimer\":7000500}")

/* rank 0's second AllReduce, in a group of its own with no launch */
#define SECOND                                                                 \
  EV("ncclProfileCollApi", "0", U0, "0x220", "0x110", "2010.0", "2011.0", "7", \
     "", API_DETAILS)                                                          \
  EV("ncclProfileGroup", "0", U0, "0x420", "null", "2031.0", "2040.0", "7",    \
     "", "{}")                                                                 \
  EV("ncclProfileColl", "0", U0, "0x520", "0x220", "2032.0", "2035.0", "7",    \
     "", COLL_DETAILS("1", "0x420"))                                           \
  EV("ncclProfileGroupApi", "0", U0, "0x110", "null", "2005.0", "2070.0", "7", \
     "", "{\"depth\":1,\"graphCaptured\":false}")

#define KERNELS                                                                \
  KERNEL("1", "100", "0", "0x3a", "1025.0", "1280.0")                          \
  KERNEL("2", "101", "1", "0x3b", "1045.0", "1285.0")

#define TAIL                                                                   \
  LIFE("ProfilerFinalize", "0", U0, "3000.0")                                  \
  LIFE("ProfilerFinalize", "1", U1, "3000.5")

static const char real[] = HEAD KERNELS SECOND TAIL;
static const char no_cupti[] = HEAD SECOND TAIL;

/* The file is told by its first line (a lifecycle line without
 * recordType), read whole, its fields named as ours. */
static void read_as_written(void **state) {
  (void)state;
  yielded y;
  read_all("trace_1_pid7.jsonl", real, &y);
  assert_int_equal(y.format, TR_FORMAT_MINIMAL_PROFILER);
  rec_scratch *s = malloc(sizeof *s);
  assert_non_null(s);
  rec_scratch_init(s);
  rec r;
  assert_true(rec_decode(&r, s, y.line[0], strlen(y.line[0])));
  assert_int_equal(r.rt, RT_PROCESS);
  assert_non_null(strstr(y.line[0], "\"pid\":7,")); /* from start.pid */
  /* each rank's GPU: its UUID as written, its device from its kernels'
   * CUPTI records (whose own gpuUuid is rank 0's for both) */
  the_line(&y, "\"func\":\"ProfilerInit\"",
           "\"rank\":0,\"nranks\":2,\"nNodes\":-1,\"gpuUuid\":\"" U0
           "\",\"device\":0,");
  the_line(&y, "\"func\":\"ProfilerInit\"",
           "\"rank\":1,\"nranks\":2,\"nNodes\":-1,\"gpuUuid\":\"" U1
           "\",\"device\":1,");
  /* a Finalize says its communicator's size */
  assert_int_equal(count_lines(&y, "\"func\":\"ProfilerFinalize\""), 2);
  assert_int_equal(count_lines(&y, "\"func\":\"ProfilerFinalize\",\"ctx\":1,"
                                   "\"commId\":\"0x2a\",\"commName\":\"\","
                                   "\"rank\":0,\"nranks\":2,"),
                   1);
  /* descriptor fields by our names */
  char group[32];
  id_of(&y, "\"type\":\"ncclProfileGroup\"", "\"start\":{\"ts\":1031.000",
        group, sizeof group);
  char want[64];
  snprintf(want, sizeof want, "\"parentGroupId\":\"%s\"", group);
  const char *coll = the_line(&y, "\"type\":\"ncclProfileColl\"",
                              "\"start\":{\"ts\":1032.000");
  assert_non_null(strstr(coll, "\"seqNumber\":0,"));
  assert_non_null(strstr(coll, "\"nChannels\":2,\"nWarps\":8,"));
  assert_non_null(strstr(coll, "\"datatype\":\"ncclFloat32\""));
  assert_non_null(strstr(coll, want));
  assert_non_null(
      strstr(the_line(&y, "\"type\":\"ncclProfileCollApi\"", "\"rank\":1,"),
             "\"datatype\":\"ncclFloat32\""));
  assert_non_null(
      strstr(the_line(&y, "\"type\":\"ncclProfileGroupApi\"", "1005.000"),
             "\"groupDepth\":1"));
  assert_non_null(strstr(
      the_line(&y, "\"type\":\"ncclProfileKernelCh\"", "\"pTimer\":7000500"),
      "\"channelId\":1,"));
  the_line(&y, "\"type\":\"ncclProfileKernelLaunch\"", "\"extCorrId\":1,");
  /* every NCCL event counted, none of the CUPTI records */
  assert_non_null(strstr(y.line[y.n - 1], "\"recordType\":\"processEnd\""));
  assert_non_null(strstr(y.line[y.n - 1], "\"eventsWritten\":15,"));
  free_all(&y);
  free(s);
}

/* CUPTI records become gpuActivity records of the rank whose KernelLaunch
 * their extCorrId names, on their own device. */
static void gpu_activity_tied(void **state) {
  (void)state;
  yielded y;
  read_all("trace_2_pid7.jsonl", real, &y);
  rec_scratch *s = malloc(sizeof *s);
  assert_non_null(s);
  rec_scratch_init(s);
  assert_int_equal(count_lines(&y, "\"recordType\":\"gpuActivity\""), 2);
  char launch[32], want[64];
  id_of(&y, "\"type\":\"ncclProfileKernelLaunch\"", "\"extCorrId\":2,", launch,
        sizeof launch);
  const char *a =
      the_line(&y, "\"recordType\":\"gpuActivity\"", "\"extCorrId\":2,");
  snprintf(want, sizeof want, "\"launchId\":\"%s\",\"ctx\":2,", launch);
  assert_non_null(strstr(a, want));
  assert_non_null(strstr(a, "\"kind\":\"KERNEL\""));
  assert_non_null(
      strstr(a, "\"device\":1,\"stream\":\"0x3b\",\"corrId\":101,"));
  assert_non_null(strstr(a, "\"rank\":1,"));
  rec r;
  assert_true(rec_decode(&r, s, a, strlen(a)));
  assert_int_equal(r.rt, RT_GPU_ACTIVITY);
  assert_true(r.has_ctx);
  assert_int_equal(r.ctx, 2);
  assert_int_equal(r.rank, 1);
  assert_int_equal(r.start.ts, 1045000);
  assert_int_equal(r.stop.ts, 1285000);
  assert_int_equal(rec_start_time(&r), 1045000);
  free_all(&y);
  free(s);
}

/* Timing records: the best evidence of each operation, its source named,
 * bytes = count x 4, no bandwidth from the enqueue span. */
static void timing_from_the_gpu(void **state) {
  (void)state;
  yielded y;
  read_all("trace_3_pid7.jsonl", real, &y);
  assert_int_equal(count_lines(&y, "\"recordType\":\"timing\""), 3);
  const char *r0 = the_line(&y, "\"recordType\":\"timing\"",
                            "\"rank\":0,\"nranks\":2,\"func\":\"AllReduce\","
                            "\"seqNumber\":0,");
  /* KernelCh stamps: first start -> last stop = 250 us, placed at the
   * CUPTI kernel's start (the callbacks alone would say 1052.0) */
  assert_non_null(strstr(r0, "\"count\":1048576,\"datatype\":\"ncclFloat32\","
                             "\"bytes\":4194304,"));
  assert_non_null(strstr(r0, "\"source\":\"gpu\",\"start\":1025.000,"
                             "\"stop\":1275.000,\"duration\":250.000,"));
  assert_non_null(strstr(r0, "\"channels\":2,"));
  assert_non_null(strstr(r0, "\"clock\":\"cupti\""));
  assert_non_null(strstr(r0, "\"cupti\":{\"start\":1025.000,\"stop\":1280.000,"
                             "\"device\":0,"));
  /* 4194304 B / 250 us = 16.777 GB/s; AllReduce of 2: factor 1 */
  assert_non_null(strstr(r0, "\"algBw\":16.777,\"busBw\":16.777,"));
  assert_non_null(strstr(r0, "\"apiTs\":1010.000,"));
  /* rank 1: no KernelCh, its CUPTI kernel */
  const char *r1 = the_line(&y, "\"recordType\":\"timing\"", "\"rank\":1,");
  assert_non_null(strstr(r1, "\"source\":\"cupti\",\"start\":1045.000,"
                             "\"stop\":1285.000,\"duration\":240.000,"));
  assert_null(strstr(r1, "\"gpu\":"));
  /* the second AllReduce has no launch in its group: its enqueue span, no
   * bandwidth */
  const char *second =
      the_line(&y, "\"recordType\":\"timing\"", "\"seqNumber\":1,");
  assert_non_null(strstr(second, "\"source\":\"host\",\"start\":2032.000,"
                                 "\"stop\":2035.000,"));
  assert_non_null(strstr(second, "\"algBw\":null,\"busBw\":null,"));
  assert_null(strstr(second, "\"cupti\":"));
  free_all(&y);
}

/* Without CUPTI records the KernelCh stamps are placed by the callbacks
 * alone: the smallest "seen - stamp" bound (the stop of channel 1, seen at
 * 1302.0 for 7 250 000), so the start is 7 000 000 + that = 1052.0. */
static void timing_without_cupti(void **state) {
  (void)state;
  yielded y;
  read_all("trace_4_pid7.jsonl", no_cupti, &y);
  assert_int_equal(count_lines(&y, "\"recordType\":\"gpuActivity\""), 0);
  the_line(&y, "\"func\":\"ProfilerInit\"", "\"gpuUuid\":\"" U0 "\",\"start\"");
  const char *r0 = the_line(&y, "\"recordType\":\"timing\"",
                            "\"rank\":0,\"nranks\":2,\"func\":\"AllReduce\","
                            "\"seqNumber\":0,");
  assert_non_null(strstr(r0, "\"source\":\"gpu\",\"start\":1052.000,"
                             "\"stop\":1302.000,\"duration\":250.000,"));
  assert_non_null(strstr(r0, "\"clock\":\"callbacks\""));
  /* rank 1 has nothing but its enqueue span */
  const char *r1 = the_line(&y, "\"recordType\":\"timing\"", "\"rank\":1,");
  assert_non_null(strstr(r1, "\"source\":\"host\","));
  assert_non_null(strstr(r1, "\"algBw\":null,"));
  free_all(&y);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(read_as_written),
      cmocka_unit_test(gpu_activity_tied),
      cmocka_unit_test(timing_from_the_gpu),
      cmocka_unit_test(timing_without_cupti),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
