/*
 * tests/plugin/test_trace_file.c — the output file keeps only complete
 * lines: no line crosses a 4 KiB boundary (padding inside the previous
 * object, or a pad record), a short write is truncated back to the last
 * complete line, and an unusable folder degrades instead of failing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_file.h"
#include "trace_read.h"

/* Append one JSON line whose total length (with newline) is `len`. */
static void add_line(cs_trace_file *f, size_t len, unsigned seq) {
  size_t start = cs_tf_line_begin(f);
  char head[64];
  int n = snprintf(head, sizeof head,
                   "{\"recordType\":\"event\",\"seq\":%u,\"x\":\"", seq);
  cs_jbuf_put(&f->buf, head, (size_t)n);
  size_t fill = len > (size_t)n + 3 ? len - (size_t)n - 3 : 0;
  for (size_t i = 0; i < fill; i++)
    cs_jbuf_putc(&f->buf, 'a' + (char)(i % 26));
  cs_jbuf_put(&f->buf, "\"}", 2);
  cs_tf_line_end(f, start, 0);
}

static void test_lines_never_cross_pages(void **state) {
  (void)state;
  char dir[4096];
  test_make_tmpdir(dir, sizeof dir);
  cs_trace_file f;
  assert_true(cs_tf_open(&f, dir, "trace_unit"));
  srand(7);
  unsigned lines = 0;
  for (int round = 0; round < 40; round++) {
    int n = 1 + rand() % 60;
    for (int i = 0; i < n; i++)
      add_line(&f, 40 + (size_t)(rand() % 1500), lines++);
    if (round % 3 == 0)
      cs_tf_flush(&f, 0); /* flushes at arbitrary points in the page */
  }
  add_line(&f, 9000, lines++); /* a long line: starts on a boundary */
  add_line(&f, 100, lines++);
  cs_tf_close(&f, 0);

  trace_t t;
  assert_true(trace_load(&t, f.path));
  assert_int_equal(t.bad_lines, 0);
  assert_int_equal(t.crossing_lines, 0);
  assert_true(t.ends_with_newline);
  assert_int_equal(t.count, lines); /* pad records are skipped by the reader */
  for (unsigned i = 0; i < lines; i++)
    assert_int_equal((unsigned)json_num(t.lines[i], "seq"), i);
  assert_true(f.pad_bytes > 0);
  trace_free(&t);
  test_remove_tree(dir);
}

static void test_second_file_gets_new_name(void **state) {
  (void)state;
  char dir[4096];
  test_make_tmpdir(dir, sizeof dir);
  cs_trace_file a, b;
  assert_true(cs_tf_open(&a, dir, "trace_same"));
  assert_true(cs_tf_open(&b, dir, "trace_same"));
  assert_string_not_equal(a.path, b.path);
  assert_non_null(strstr(b.path, "trace_same.1.jsonl"));
  cs_tf_close(&a, 0);
  cs_tf_close(&b, 0);
  test_remove_tree(dir);
}

static void test_unusable_folder_degrades(void **state) {
  (void)state;
  char dir[4096], file_as_dir[4200];
  test_make_tmpdir(dir, sizeof dir);
  snprintf(file_as_dir, sizeof file_as_dir, "%s/plainfile", dir);
  FILE *fp = fopen(file_as_dir, "w");
  fclose(fp);
  cs_trace_file f;
  assert_false(cs_tf_open(&f, file_as_dir, "trace_x"));
  add_line(&f, 100, 0); /* must not crash; counted as lost */
  assert_int_equal(f.lines_lost, 1);
  cs_tf_close(&f, 0);
  test_remove_tree(dir);
}

/* A write that hits the file-size limit is cut: the file must still end
 * on a complete line, and the loss must be counted. */
static void test_short_write_is_truncated(void **state) {
  (void)state;
  char dir[4096];
  test_make_tmpdir(dir, sizeof dir);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {50000, 50000};
    setrlimit(RLIMIT_FSIZE, &lim);
    cs_trace_file f;
    if (!cs_tf_open(&f, dir, "trace_full"))
      _exit(2);
    for (unsigned i = 0; i < 200; i++) {
      add_line(&f, 700, i);
      if (i % 25 == 0)
        cs_tf_flush(&f, 0);
    }
    cs_tf_close(&f, 0);
    _exit(f.lines_lost > 0 && f.write_errors > 0 ? 0 : 3);
  }
  int status;
  waitpid(pid, &status, 0);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  char path[4200];
  snprintf(path, sizeof path, "%s/trace_full.jsonl", dir);
  trace_t t;
  assert_true(trace_load(&t, path));
  assert_int_equal(t.bad_lines, 0);
  assert_true(t.ends_with_newline);
  assert_true(t.count > 10);
  assert_true(t.count < 200);
  trace_free(&t);
  test_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lines_never_cross_pages),
      cmocka_unit_test(test_second_file_gets_new_name),
      cmocka_unit_test(test_unusable_folder_degrades),
      cmocka_unit_test(test_short_write_is_truncated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
