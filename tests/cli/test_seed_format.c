/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_seed_format.c — minimal_profiler traces read through the
 * read layer (read/seed_format.h): the format is told by the first line,
 * reused pointers resolve to the incarnation live at the child's start,
 * states land in the right incarnation (or a late state record, or are
 * left out when their event was never written), lifecycle and process
 * records are synthesized, a Coll's timing record is derived, lines that
 * are not records pass unchanged with their own line numbers. Files as the
 * format's real writer writes them: test_seed_real.c.
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
  dir = test_dir_make("seed");
  return dir ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  return test_dir_remove();
}

/* Every line the reader yields for a file, copied (at most 64). */
typedef struct {
  char *line[64];
  uint64_t line_no[64];
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
    y->line[y->n] = strndup(tf.line, tf.line_len);
    y->line_no[y->n] = tf.line_no;
    y->n++;
  }
  tr_close(&tf);
}

static void free_all(yielded *y) {
  for (size_t i = 0; i < y->n; i++)
    free(y->line[i]);
}

/* The record of line i, decoded into `r` with `s` (valid until the next
 * call). */
static const rec *decode(const yielded *y, size_t i, rec_scratch *s, rec *r) {
  assert_true(i < y->n);
  assert_true(rec_decode(r, s, y->line[i], strlen(y->line[i])));
  return r;
}

/* The line of the event with id `id`, or -1. */
static long line_of_id(const yielded *y, uint64_t id, rec_scratch *s) {
  for (size_t i = 0; i < y->n; i++) {
    rec r;
    if (rec_decode(&r, s, y->line[i], strlen(y->line[i])) && r.rt == RT_EVENT &&
        r.has_id && r.id == id)
      return (long)i;
  }
  return -1;
}

#define LIFE(func, ts)                                                         \
  "{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\",\"func\":\"" func  \
  "\",\"gpuUuid\":\"GPU-0\",\"commId\":77,\"rank\":0,\"start\":{\"ts\":" ts    \
  ",\"pid\":9,\"tid\":9},\"stop\":{\"ts\":" ts                                 \
  ",\"pid\":9,\"tid\":9},\"duration\":0,\"myPid\":9,\"details\":{"             \
  "\"nranks\":2,\"commName\":\"c\",\"eventMask\":4095}}\n"

#define EV(type, addr, parent, start, stop, details)                           \
  "{\"recordType\":\"event\",\"type\":\"" type "\",\"func\":\"AllReduce\","    \
  "\"gpuUuid\":\"GPU-0\",\"commId\":77,\"rank\":0,\"start\":{\"ts\":" start    \
  ",\"pid\":9,\"tid\":10},\"stop\":{\"ts\":" stop                              \
  ",\"pid\":9,\"tid\":10},\"duration\":1,\"myPid\":9,\"parentObj\":\"" parent  \
  "\",\"eventAddr\":\"" addr "\",\"ctx\":\"0x1\",\"isPxn\":false,"             \
  "\"details\":" details "}\n"

#define ST(addr, ts, name, id)                                                 \
  "{\"recordType\":\"state\",\"eventAddr\":\"" addr "\",\"ts\":" ts            \
  ",\"name\":\"" name "\",\"id\":" id ",\"pid\":9,\"tid\":10}\n"

/* Two ProxyOps at one address, each with a ProxyStep at one address: the
 * steps are written before their op (events are written when they stop),
 * the second incarnations after the first ones ended. */
static const char reused[] = LIFE("ProfilerInit", "100.0")
    EV("ncclProfileColl", "0xc0", "0x0", "110.0", "120.0",
       "{\"func\":\"AllReduce\",\"seq\":3,\"channels\":2}")
        ST("0xa0", "131.0", "ncclProfilerProxyOpInProgress_v4",
           "19") ST("0xb0", "135.5", "ncclProfilerProxyStepSendWait",
                    "9") EV("ncclProfileProxyStep", "0xb0", "0xa0", "132.0",
                            "140.0", "{\"step\":0}")
            EV("ncclProfileProxyOp", "0xa0", "0xc0", "130.0", "150.0",
               "{\"channelId\":1,\"peer\":1,\"nSteps\":1,\"isSend\":1}")
                ST("0xa0", "160.0", "ProxyOpInProgress",
                   "19") ST("0xb0", "165.0", "ProxyStepSendGPUWait",
                            "8") EV("ncclProfileProxyStep", "0xb0", "0xa0",
                                    "162.0", "170.0", "{\"step\":0}")
                    EV("ncclProfileProxyOp", "0xa0", "0xc0", "160.0", "180.0",
                       "{\"channelId\":0,\"peer\":1,\"nSteps\":1,\"isSend\":0}")
                        LIFE("ProfilerFinalize", "200.0");

static void reused_pointers(void **state) {
  (void)state;
  yielded y;
  rec_scratch *s = malloc(sizeof *s);
  assert_non_null(s);
  rec_scratch_init(s);
  read_all("trace_1_pid9.jsonl", reused, &y);
  assert_int_equal(y.format, TR_FORMAT_MINIMAL_PROFILER);
  /* process, Init, Coll, step, op, step, op, Finalize, the Coll's timing
   * record (derived), processEnd */
  assert_int_equal(y.n, 10);
  rec r;
  assert_int_equal(decode(&y, 0, s, &r)->rt, RT_PROCESS);
  assert_int_equal(r.ts, 100000);
  assert_int_equal(decode(&y, 1, s, &r)->et, ET_LIFECYCLE);
  assert_non_null(strstr(y.line[1], "\"ctx\":1,\"commId\":\"0x4d\""));
  assert_non_null(strstr(y.line[1], "\"nranks\":2"));
  /* ids are positions among the NCCL events; ProxySteps name the op
   * incarnation that was live at their start */
  const uint64_t coll = 1, step1 = 2, op1 = 3, step2 = 4, op2 = 5;
  decode(&y, 3, s, &r);
  assert_int_equal(r.et, ET_PROXY_STEP);
  assert_int_equal(r.id, step1);
  assert_int_equal(r.parent, PAR_LOCAL);
  assert_int_equal(r.parent_id, op1);
  decode(&y, 5, s, &r);
  assert_int_equal(r.id, step2);
  assert_int_equal(r.parent_id, op2);
  decode(&y, 4, s, &r);
  assert_int_equal(r.et, ET_PROXY_OP);
  assert_int_equal(r.parent_id, coll);
  decode(&y, 6, s, &r);
  assert_int_equal(r.id, op2);
  assert_int_equal(r.parent_id, coll);
  assert_int_equal(r.start.ts, 160000);
  assert_int_equal(r.stop.ts, 180000);
  /* states in their own incarnation, NCCL's names shortened */
  assert_non_null(strstr(y.line[3], "\"states\":[{\"name\":\"SendWait\","
                                    "\"id\":9,\"ts\":135.500}]"));
  assert_non_null(strstr(y.line[5], "\"states\":[{\"name\":\"SendGPUWait\","
                                    "\"id\":8,\"ts\":165.000}]"));
  assert_non_null(strstr(y.line[4], "\"states\":[{\"name\":\""
                                    "ProxyOpInProgress\",\"id\":19,"
                                    "\"ts\":131.000}]"));
  assert_non_null(strstr(y.line[6], "\"ts\":160.000}]"));
  /* details renamed; steps repeat their op's peer, channel, direction */
  assert_non_null(strstr(y.line[2], "\"seqNumber\":3,"));
  assert_non_null(strstr(y.line[2], "\"nChannels\":2"));
  assert_non_null(strstr(y.line[2], "\"func\":\"AllReduce\""));
  assert_non_null(strstr(y.line[3], "\"peer\":1,\"channelId\":1,"
                                    "\"isSend\":true"));
  assert_non_null(strstr(y.line[5], "\"isSend\":false"));
  assert_non_null(strstr(y.line[4], "\"isSend\":true"));
  /* duration recomputed from the exact times */
  assert_non_null(strstr(y.line[4], "\"duration\":20.000,\"end\":\"stopped\""));
  /* every communicator finalized: processEnd, counting every event */
  assert_int_equal(decode(&y, 7, s, &r)->et, ET_LIFECYCLE);
  assert_non_null(strstr(y.line[7], "ProfilerFinalize\",\"ctx\":1,"));
  /* the Coll ran, as far as the file says, from its first ProxyOp's start
   * to its last one's stop (no KernelCh stamps, no CUPTI kernel) */
  assert_int_equal(decode(&y, 8, s, &r)->rt, RT_TIMING);
  assert_non_null(strstr(y.line[8], "\"eventId\":\"0x1\""));
  assert_non_null(strstr(y.line[8], "\"source\":\"proxy\",\"start\":130.000,"
                                    "\"stop\":180.000,\"duration\":50.000"));
  assert_int_equal(y.line_no[8], 2);
  assert_int_equal(decode(&y, 9, s, &r)->rt, RT_PROCESS_END);
  assert_non_null(strstr(y.line[9], "\"eventsWritten\":5,"));
  /* line numbers are those of the minimal_profiler lines */
  assert_int_equal(y.line_no[2], 2);
  assert_int_equal(y.line_no[6], 10);
  assert_int_equal(line_of_id(&y, op2, s), 6);
  free_all(&y);
  free(s);
}

/* A state after its event's record (late), a state of an event never
 * written, a ProxyStep whose ProxyOp never stopped, no lifecycle record,
 * no Finalize (so no processEnd), a line that is not JSON. */
static const char odd[] = ST("0xa0", "131.0", "ProxyOpInProgress", "19") EV(
    "ncclProfileProxyStep", "0xb0", "0xa0", "132.0", "140.0", "{\"step\":0}")
    EV("ncclProfileKernelCh", "0xd0", "0x0", "150.0", "160.0",
       "{\"channelId\":0,\"pTimer\":1000}") "{\"recordType\":\"state\","
                                            "\"eventAddr\":\"0xd0\",\"ts\":159."
                                            "0,"
                                            "\"name\":"
                                            "\"ncclProfilerKernelChStop\","
                                            "\"id\":22,\"pid\":9,\"tid\":10,"
                                            "\"pTimer\":1500}\n"
                                            "not json\n";

static void late_orphan_and_unknown(void **state) {
  (void)state;
  yielded y;
  rec_scratch *s = malloc(sizeof *s);
  assert_non_null(s);
  rec_scratch_init(s);
  read_all("trace_2_pid9.jsonl", odd, &y);
  assert_int_equal(y.format, TR_FORMAT_MINIMAL_PROFILER);
  /* process, synthesized Init, step, KernelCh, late state, the bad line */
  assert_int_equal(y.n, 6);
  rec r;
  assert_int_equal(decode(&y, 0, s, &r)->rt, RT_PROCESS);
  assert_int_equal(r.ts, 131000);
  decode(&y, 1, s, &r);
  assert_int_equal(r.et, ET_LIFECYCLE);
  assert_non_null(strstr(y.line[1], "\"synthesized\":true"));
  assert_int_equal(y.line_no[1], 2);
  /* the parent never stopped: not in the file, said so */
  decode(&y, 2, s, &r);
  assert_int_equal(r.parent, PAR_UNKNOWN);
  assert_int_equal(r.parent_raw, 0xa0);
  assert_null(strstr(y.line[2], "\"states\"")); /* the orphan went nowhere */
  decode(&y, 3, s, &r);
  assert_int_equal(r.et, ET_KERNEL_CH);
  assert_int_equal(r.parent, PAR_NONE);
  decode(&y, 4, s, &r);
  assert_int_equal(r.rt, RT_STATE);
  assert_non_null(strstr(y.line[4], "\"eventId\":\"0x2\""));
  assert_non_null(strstr(y.line[4], "\"state\":{\"name\":\"KernelChStop\","
                                    "\"id\":22,\"ts\":159.000,"
                                    "\"pTimer\":1500}"));
  assert_string_equal(y.line[5], "not json");
  assert_int_equal(y.line_no[5], 5);
  free_all(&y);
  free(s);
}

/* RCCL's ProxyDiagUpdate keeps its name whatever number the file gives it:
 * 32 (RCCL 2.31), 31 (RCCL before 2.31), or none (then 31). It is not
 * NVIDIA's KernelPhaseStop, which 31 means under NVIDIA NCCL. */
static const char rccl_diag[] = LIFE("ProfilerInit", "100.0") ST(
    "0xa0", "131.0", "ncclProfilerProxyDiagUpdate",
    "32") ST("0xa0", "132.0", "ProxyDiagUpdate", "31")
    ST("0xa0", "132.5", "ProxyOpInProgress",
       "19") "{\"recordType\":\"state\",\"eventAddr\":\"0xa0\",\"ts\":133.0,"
             "\"name\":\"ProxyDiagUpdate\",\"pid\":9,\"tid\":10}\n" EV(
                 "ncclProfileProxyOp", "0xa0", "0x0", "130.0", "150.0",
                 "{\"channelId\":1,\"peer\":1,\"nSteps\":1,\"isSend\":1}")
                 LIFE("ProfilerFinalize", "200.0");

static void rccl_proxy_diag_names(void **state) {
  (void)state;
  yielded y;
  read_all("trace_3_pid9.jsonl", rccl_diag, &y);
  assert_int_equal(y.format, TR_FORMAT_MINIMAL_PROFILER);
  const char *op = NULL;
  for (size_t i = 0; i < y.n; i++)
    if (strstr(y.line[i], "\"ncclProfileProxyOp\""))
      op = y.line[i];
  assert_non_null(op);
  assert_non_null(
      strstr(op, "{\"name\":\"ProxyDiagUpdate\",\"id\":32,\"ts\":131.000}"));
  assert_non_null(
      strstr(op, "{\"name\":\"ProxyDiagUpdate\",\"id\":31,\"ts\":132.000}"));
  assert_non_null(
      strstr(op, "{\"name\":\"ProxyDiagUpdate\",\"id\":31,\"ts\":133.000}"));
  assert_null(strstr(op, "KernelPhaseStop"));
  free_all(&y);
}

/* Our own format is read as it is, even with keys minimal_profiler also
 * has; so is a file that starts with blank lines then our process record. */
static void own_format_untouched(void **state) {
  (void)state;
  static const char ours[] =
      "\n{\"recordType\":\"process\",\"pid\":1,\"ts\":1.0}\n"
      "{\"recordType\":\"event\",\"type\":\"ncclProfileColl\",\"id\":\"0x1\","
      "\"eventAddr\":\"0x5\"}\n";
  yielded y;
  read_all("trace_x_h_pid1.jsonl", ours, &y);
  assert_int_equal(y.format, TR_FORMAT_CCLSCOPE);
  assert_int_equal(y.n, 3);
  assert_string_equal(y.line[0], "");
  assert_string_equal(y.line[1],
                      "{\"recordType\":\"process\",\"pid\":1,\"ts\":1.0}");
  assert_int_equal(y.line_no[2], 3);
  free_all(&y);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reused_pointers),
      cmocka_unit_test(late_orphan_and_unknown),
      cmocka_unit_test(rccl_proxy_diag_names),
      cmocka_unit_test(own_format_untouched),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
