/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/clickhouse/test_load_rows.c — clickhouse.rows: the rows `cclscope
 * load` builds, without a server. A format-1 timing record (µs with three
 * decimals, the enqueue object, identity from the process record and the
 * ProfilerInit) and the same record in format 2 (integer-ns keys, identity
 * on the record) give the same row, to the nanosecond; strings are escaped
 * for TabSeparated; the compiled-in schema fills its placeholders and cuts
 * into the statements of share/clickhouse/schema.sql.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load_rows.h"
#include "load/load_schema.h"
#include "load/row_buf.h"
#include "read/trace_record.h"

static const char process_v1[] =
    "{\"recordType\":\"process\",\"plugin\":\"cclscope\",\"formatVersion\":1,"
    "\"hostname\":\"node7\",\"pid\":4827,\"ppid\":4818,\"runId\":\"job\\\\1\","
    "\"runIdSource\":\"SLURM_JOB_ID\",\"globalRank\":13,\"localRank\":5,"
    "\"worldSize\":64,\"eventMask\":65359,\"ts\":1795274479933782.790}";
static const char init_v1[] =
    "{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\","
    "\"func\":\"ProfilerInit\",\"ctx\":1,\"commId\":\"0xabcdef\","
    "\"commName\":\"tp\\tgroup\",\"rank\":3,\"nranks\":8,\"nNodes\":2,"
    "\"gpuUuid\":\"GPU-1\",\"device\":2,\"start\":{\"ts\":1.000,\"pid\":4827,"
    "\"tid\":4827},\"stop\":{\"ts\":2.000,\"pid\":4827,\"tid\":4827},"
    "\"duration\":1.000}";
static const char timing_v1[] =
    "{\"recordType\":\"timing\",\"eventId\":\"0x4\",\"type\":"
    "\"ncclProfileColl\",\"ctx\":1,\"commId\":\"0xabcdef\",\"rank\":3,"
    "\"nranks\":8,\"func\":\"AllReduce\",\"seqNumber\":7,\"algo\":\"RING\","
    "\"proto\":\"SIMPLE\",\"count\":1048576,\"datatype\":\"ncclFloat32\","
    "\"bytes\":4194304,\"apiTs\":1795274479934001.001,\"enqueue\":{\"start\":"
    "1795274479934002.002,\"stop\":1795274479934003.003},\"source\":\"gpu\","
    "\"start\":1795274479934100.999,\"stop\":1795274479934912.431,"
    "\"duration\":811.432,\"gpu\":{\"start\":1795274479934100.999,\"stop\":"
    "1795274479934912.431,\"channels\":2,\"batched\":false},\"algBw\":5.163,"
    "\"busBw\":9.035}";
static const char timing_v2[] =
    "{\"recordType\":\"timing\",\"runId\":\"job\\\\1\",\"globalRank\":13,"
    "\"hostname\":\"node7\",\"pid\":4827,\"device\":2,\"eventId\":\"0x4\","
    "\"type\":\"ncclProfileColl\",\"ctx\":1,\"commId\":\"0xabcdef\","
    "\"commName\":\"tp\\tgroup\",\"rank\":3,\"nranks\":8,\"func\":"
    "\"AllReduce\",\"seqNumber\":7,\"algo\":\"RING\",\"proto\":\"SIMPLE\","
    "\"count\":1048576,\"datatype\":\"ncclFloat32\",\"bytes\":4194304,"
    "\"apiNs\":1795274479934001001,\"enqueueStartNs\":1795274479934002002,"
    "\"enqueueStopNs\":1795274479934003003,\"source\":\"gpu\",\"startNs\":"
    "1795274479934100999,\"stopNs\":1795274479934912431,\"durationNs\":"
    "811432,\"gpu\":{\"startNs\":1795274479934100999,\"stopNs\":"
    "1795274479934912431,\"channels\":2,\"batched\":false},\"algBw\":5.163,"
    "\"busBw\":9.035}";

/* What both must give (file "f.jsonl", line 9). */
static const char timing_row[] =
    "timing\tjob\\\\1\t13\tnode7\t4827\t2\t0x4\tncclProfileColl\t1\t0xabcdef\t"
    "tp\\tgroup\t3\t8\tAllReduce\t7\t\\N\tRING\tSIMPLE\t1048576\tncclFloat32\t"
    "4194304\t1795274479934001001\t1795274479934002002\t1795274479934003003\t"
    "gpu\t1795274479934100999\t1795274479934912431\t811432\t5.163\t9.035\t0\t"
    "f.jsonl\t9\n";

static void feed(load_file *lf, rec_scratch *sc, const char *line) {
  rec r;
  assert_true(rec_decode(&r, sc, line, strlen(line)));
  assert_true(load_file_note(lf, &r));
}

static char *timing_of(const char *process, const char *init,
                       const char *timing) {
  static rec_scratch sc;
  rec_scratch_init(&sc);
  load_file lf;
  load_file_begin(&lf, "f.jsonl");
  if (process)
    feed(&lf, &sc, process);
  if (init)
    feed(&lf, &sc, init);
  rec r;
  assert_true(rec_decode(&r, &sc, timing, strlen(timing)));
  assert_true(load_file_note(&lf, &r));
  row_buf b;
  row_buf_init(&b);
  row_timing(&b, &lf, &r, 9);
  assert_false(b.failed);
  assert_int_equal(b.rows, 1);
  char *text = strndup(b.data, b.len);
  row_buf_free(&b);
  load_file_end(&lf);
  return text;
}

static void format1_timing_exact(void **state) {
  (void)state;
  char *row = timing_of(process_v1, init_v1, timing_v1);
  assert_string_equal(row, timing_row);
  free(row);
}

static void format2_timing_same_row(void **state) {
  (void)state;
  /* identity on the record itself: no process record or ProfilerInit */
  char *row = timing_of(NULL, NULL, timing_v2);
  assert_string_equal(row, timing_row);
  free(row);
}

static void columns_match_rows(void **state) {
  (void)state;
  /* as many columns named as a timing row has values */
  const char *cols = load_table_columns(LT_TIMING);
  size_t commas = 0;
  for (const char *p = cols; *p; p++)
    commas += *p == ',';
  size_t tabs = 0;
  for (const char *p = timing_row; *p; p++)
    tabs += *p == '\t';
  assert_int_equal(commas, tabs);
}

static void schema_fills_and_cuts(void **state) {
  (void)state;
  schema_vars v = {"db", "p_", "_local", " ON CLUSTER c", "c"};
  const char *unknown;
  char *text = schema_fill(load_schema_sql, &v, &unknown);
  assert_non_null(text);
  assert_null(strstr(text, "${"));
  assert_null(strstr(text, "--")); /* comments left out */
  char *cursor = text, *stmt;
  int n = 0;
  bool saw_timing = false;
  while ((stmt = schema_next_statement(&cursor)) != NULL) {
    assert_true(strncmp(stmt, "CREATE TABLE IF NOT EXISTS db.p_", 32) == 0);
    saw_timing =
        saw_timing || strncmp(stmt + 32, "timing_local ON CLUSTER c", 25) == 0;
    n++;
  }
  assert_true(saw_timing);
  assert_int_equal(n, LT_COUNT + 1); /* the tables and the load markers */
  free(text);
  text = schema_fill(load_distributed_sql, &v, &unknown);
  assert_non_null(text);
  assert_non_null(strstr(text, "Distributed(c, db, p_timing_local, "));
  free(text);
  assert_null(schema_fill("x ${NOPE} y", &v, &unknown));
  assert_string_equal(unknown, "${NOPE} y");
}

static void escapes(void **state) {
  (void)state;
  row_buf b;
  row_buf_init(&b);
  row_str(&b, "a\tb\nc\\d", 7);
  row_null(&b);
  row_i64(&b, -5);
  row_end(&b);
  assert_int_equal(b.len, strlen("a\\tb\\nc\\\\d\t\\N\t-5\n"));
  assert_memory_equal(b.data, "a\\tb\\nc\\\\d\t\\N\t-5\n", b.len);
  row_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(format1_timing_exact),
      cmocka_unit_test(format2_timing_same_row),
      cmocka_unit_test(columns_match_rows),
      cmocka_unit_test(schema_fills_and_cuts),
      cmocka_unit_test(escapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
