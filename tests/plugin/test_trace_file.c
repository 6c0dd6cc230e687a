/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_trace_file.c — the output file keeps only complete
 * lines: no line crosses a 4 KiB boundary (padding inside the previous
 * object, or a pad record), a short write is truncated back to the last
 * complete line, and an unusable folder degrades instead of failing.
 * Writing goes through the I/O thread (trace_io.c), with O_DIRECT where
 * the file system takes it: every line arrives once and in order whatever
 * mix of bulk writes, periodic flushes and syncs, a file system that
 * refuses O_DIRECT gets ordinary writes, and tmpfs never gets O_DIRECT.
 * The accounting record (trace_accounting.h), the second line, counts the
 * lines a full disk cost, closed or killed, in a file that cannot grow.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trace_file.h"
#include "trace_io.h"
#include "trace_read.h"

/* A folder for tests that need O_DIRECT: $TMPDIR or /tmp, else /var/tmp,
 * else the working directory (the build tree). Fails the test, saying
 * why, when none takes it. */
static void make_direct_io_dir(char *out, size_t outlen) {
  const char *tmpdir = getenv("TMPDIR");
  const char *bases[] = {tmpdir && *tmpdir ? tmpdir : "/tmp", "/var/tmp", "."};
  for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
    snprintf(out, outlen, "%s/cclscope-test-XXXXXX", bases[i]);
    if (!mkdtemp(out))
      continue;
    if (test_dir_takes_direct_io(out))
      return;
    test_remove_tree(out);
  }
  fail_msg("no folder here takes O_DIRECT writes ($TMPDIR, /tmp, /var/tmp, "
           "the working directory)");
}

/* cs_tf_open in the folder `dir`, opened for this one file. */
static bool open_in(cs_trace_file *f, const char *dir, const char *stem,
                    cs_tf_direct_mode mode) {
  cs_out_dir folder;
  cs_out_dir_init(&folder, dir, "the test folder");
  bool ok = cs_tf_open(f, &folder, stem, mode, 0);
  cs_out_dir_close(&folder);
  return ok;
}

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
  /* On the heap: if an assert fails, the I/O thread keeps valid memory. */
  cs_trace_file *f = calloc(1, sizeof *f);
  assert_true(open_in(f, dir, "trace_unit", CS_TF_DIRECT_AUTO));
  srand(7);
  unsigned lines = 0;
  for (int round = 0; round < 40; round++) {
    int n = 1 + rand() % 60;
    for (int i = 0; i < n; i++)
      add_line(f, 40 + (size_t)(rand() % 1500), lines++);
    if (round % 3 == 0)
      cs_tf_flush(f, 0); /* flushes at arbitrary points in the page */
  }
  add_line(f, 9000, lines++); /* a long line: starts on a boundary */
  add_line(f, 100, lines++);
  cs_tf_close(f, 0);

  trace_t t;
  assert_true(trace_load(&t, f->path));
  assert_int_equal(t.bad_lines, 0);
  assert_int_equal(t.crossing_lines, 0);
  assert_true(t.ends_with_newline);
  assert_int_equal(t.count, lines); /* pad records are skipped by the reader */
  for (unsigned i = 0; i < lines; i++)
    assert_int_equal((unsigned)json_num(t.lines[i], "seq"), i);
  assert_true(f->pad_bytes > 0);
  trace_free(&t);
  free(f);
  test_remove_tree(dir);
}

static void test_second_file_gets_new_name(void **state) {
  (void)state;
  char dir[4096];
  test_make_tmpdir(dir, sizeof dir);
  cs_trace_file *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
  assert_true(open_in(a, dir, "trace_same", CS_TF_DIRECT_AUTO));
  assert_true(open_in(b, dir, "trace_same", CS_TF_DIRECT_AUTO));
  assert_string_not_equal(a->path, b->path);
  assert_non_null(strstr(b->path, "trace_same.1.jsonl"));
  cs_tf_close(a, 0);
  cs_tf_close(b, 0);
  free(a);
  free(b);
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
  assert_false(open_in(&f, file_as_dir, "trace_x", CS_TF_DIRECT_AUTO));
  add_line(&f, 100, 0); /* must not crash; counted as lost */
  assert_int_equal(f.lines_lost, 1);
  cs_tf_close(&f, 0);
  test_remove_tree(dir);
}

/* A write that hits the file-size limit is cut: the file must still end
 * on a complete line, and the loss must be counted. With direct I/O the
 * cut falls inside a direct write of whole pages. */
static void short_write_case(cs_tf_direct_mode mode) {
  char dir[4096];
  make_direct_io_dir(dir, sizeof dir);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {50000, 50000};
    setrlimit(RLIMIT_FSIZE, &lim);
    cs_trace_file f;
    if (!open_in(&f, dir, "trace_full", mode))
      _exit(2);
    if (cs_tf_direct(&f) != (mode != CS_TF_DIRECT_OFF))
      _exit(4);
    for (unsigned i = 0; i < 200; i++) {
      add_line(&f, 700, i);
      if (i % 25 == 0)
        cs_tf_flush(&f, 0);
      if (i % 60 == 0)
        cs_tf_sync(&f, 0);
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
  for (size_t i = 0; i < t.count; i++) /* what is there is in order */
    assert_int_equal((size_t)json_num(t.lines[i], "seq"), i);
  trace_free(&t);
  test_remove_tree(dir);
}

static void test_short_write_is_truncated(void **state) {
  (void)state;
  short_write_case(CS_TF_DIRECT_OFF);
}

static void test_short_direct_write_is_truncated(void **state) {
  (void)state;
  short_write_case(CS_TF_DIRECT_AUTO);
}

/* What the child saw, sent to the parent through a pipe. */
typedef struct {
  uint64_t lines_lost, bytes_lost, write_errors;
} child_counts;

/* In a child whose files cannot grow past `limit` bytes (a full disk):
 * a head line, cs_tf_begin, then 700-byte lines until the file is full.
 * `closed`: close it with closing fields, else die (SIGKILL) right after
 * the failure is known. The counts go to `out_fd` before either. */
static void fill_disk_in_child(const char *dir, cs_tf_direct_mode mode,
                               long limit, bool closed, int out_fd) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {(rlim_t)limit, (rlim_t)limit};
  setrlimit(RLIMIT_FSIZE, &lim);
  cs_trace_file f;
  if (!open_in(&f, dir, "trace_full", mode))
    _exit(2);
  size_t start = cs_tf_line_begin(&f);
  cs_jbuf_put(&f.buf, "{\"recordType\":\"process\"}", 24);
  cs_tf_line_end(&f, start, 0);
  if (!cs_tf_begin(&f, 0))
    _exit(3);
  for (unsigned i = 0; i < 200; i++) {
    add_line(&f, 700, i);
    if (i % 25 == 0)
      cs_tf_flush(&f, 0);
    if (!closed && i % 10 == 0) {
      cs_tf_sync(&f, 0);
      if (f.write_errors > 0)
        break;
    }
  }
  if (!closed)
    cs_tf_sync(&f, 0); /* until the record says what the failure cost */
  if (closed) {
    cs_acct_closing closing = {.reason = "finalize",
                               .events_written = 200,
                               .dropped_starts = 1,
                               .dropped_states = 2,
                               .dropped_stops = 3};
    cs_tf_set_closing(&f, &closing);
    cs_tf_close(&f, 0);
  }
  child_counts c = {f.lines_lost, f.bytes_lost, f.write_errors};
  if (write(out_fd, &c, sizeof c) != (ssize_t)sizeof c)
    _exit(4);
  if (!closed)
    raise(SIGKILL); /* no close: the record is all that counts */
  _exit(0);
}

/* A full disk, with and without closing the file: the file keeps whole
 * lines and its accounting record, the second line, exactly 512 bytes,
 * says what the writer counted (lines, bytes, the failed write and its
 * errno), and, once closed, the closing fields. */
static void full_disk_case(cs_tf_direct_mode mode, bool closed) {
  char dir[4096];
  make_direct_io_dir(dir, sizeof dir);
  const long limit = 50000;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    fill_disk_in_child(dir, mode, limit, closed, fds[1]);
  }
  close(fds[1]);
  child_counts seen;
  assert_int_equal(read(fds[0], &seen, sizeof seen), (ssize_t)sizeof seen);
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  if (closed) {
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
  } else {
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
  }
  assert_true(seen.lines_lost > 0 && seen.write_errors > 0);

  char path[4200];
  snprintf(path, sizeof path, "%s/trace_full.jsonl", dir);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_true(st.st_size <= limit);
  trace_t t;
  assert_true(trace_load(&t, path));
  assert_int_equal(t.bad_lines, 0);
  assert_true(t.ends_with_newline);
  assert_true(t.count > 10);
  assert_string_equal(json_str(t.lines[0], "recordType"), "process");
  const cJSON *a = t.lines[1];
  assert_string_equal(json_str(a, "recordType"), "accounting");
  assert_int_equal((uint64_t)json_num(a, "linesLost"), seen.lines_lost);
  assert_int_equal((uint64_t)json_num(a, "bytesLost"), seen.bytes_lost);
  assert_int_equal((uint64_t)json_num(a, "writeErrors"), seen.write_errors);
  assert_int_equal((int)json_num(a, "writeErrno"), EFBIG);
  assert_int_equal((int)json_num(a, "compressErrors"), 0);
  if (closed) {
    assert_string_equal(json_str(a, "reason"), "finalize");
    assert_int_equal((int)json_num(a, "eventsWritten"), 200);
    assert_int_equal((int)json_num(a, "droppedStarts"), 1);
    assert_int_equal((int)json_num(a, "droppedStates"), 2);
    assert_int_equal((int)json_num(a, "droppedStops"), 3);
  } else {
    assert_true(json_is_null(a, "reason"));
  }
  for (size_t i = 2; i < t.count; i++) /* the lines that are there, in order */
    assert_int_equal((size_t)json_num(t.lines[i], "seq"), i - 2);
  trace_free(&t);

  /* Exactly 512 bytes, on the first page, after the process record. */
  FILE *fp = fopen(path, "rb");
  char head[4096];
  size_t n = fread(head, 1, sizeof head, fp);
  fclose(fp);
  char *second = memchr(head, '\n', n);
  assert_non_null(second);
  second++;
  char *end = memchr(second, '\n', n - (size_t)(second - head));
  assert_non_null(end);
  assert_int_equal(end - second + 1, CS_ACCT_LINE);
  test_remove_tree(dir);
}

static void test_full_disk_is_counted_in_the_file(void **state) {
  (void)state;
  full_disk_case(CS_TF_DIRECT_OFF, true);
}

static void test_full_disk_is_counted_with_direct_io(void **state) {
  (void)state;
  full_disk_case(CS_TF_DIRECT_AUTO, true);
}

static void test_full_disk_is_counted_before_a_kill(void **state) {
  (void)state;
  full_disk_case(CS_TF_DIRECT_OFF, false);
}

/* Many megabytes through bulk writes, periodic flushes and syncs in an
 * irregular mix, with lines longer than a page: every line arrives once,
 * in order, none crosses a page; with direct I/O where the folder takes
 * it (and only there). */
static void write_mixed(const char *dir, cs_tf_direct_mode mode,
                        bool expect_direct) {
  /* On the heap: if an assert fails, the I/O thread keeps valid memory. */
  cs_trace_file *f = calloc(1, sizeof *f);
  assert_true(open_in(f, dir, "trace_mixed", mode));
  assert_int_equal(cs_tf_direct(f), expect_direct);
  /* The file keeps the threshold of its mode: O_DIRECT writes larger. */
  assert_int_equal(f->bulk_bytes,
                   expect_direct ? CS_TF_BULK_DIRECT : CS_TF_BULK_BUFFERED);
  srand(11);
  unsigned lines = 0;
  size_t bytes = 0;
  while (bytes < ((size_t)12 << 20)) {
    size_t len = (lines % 997 == 5) ? 5000 + (size_t)(rand() % 4000)
                                    : 60 + (size_t)(rand() % 900);
    add_line(f, len, lines++);
    bytes += len;
    if (cs_tf_bulk_due(f))
      cs_tf_write_bulk(f, 0);
    if (lines % 3001 == 0)
      cs_tf_flush(f, 0); /* the periodic flush: ends mid-page */
    if (lines % 7919 == 0) {
      cs_tf_sync(f, 0); /* everything so far is in the file */
      struct stat st;
      assert_int_equal(stat(f->path, &st), 0);
      assert_int_equal((uint64_t)st.st_size, f->written);
    }
  }
  cs_tf_close(f, 0);
  assert_int_equal(f->lines_lost, 0);
  assert_int_equal(f->write_errors, 0);
  if (expect_direct)
    assert_true(f->direct_bytes > ((uint64_t)8 << 20));
  else
    assert_int_equal(f->direct_bytes, 0);

  trace_t t;
  assert_true(trace_load(&t, f->path));
  assert_int_equal(t.bad_lines, 0);
  assert_int_equal(t.crossing_lines, 0);
  assert_true(t.ends_with_newline);
  assert_int_equal(t.count, lines);
  for (unsigned i = 0; i < lines; i++)
    assert_int_equal((unsigned)json_num(t.lines[i], "seq"), i);
  trace_free(&t);
  free(f);
}

static void test_bulk_direct_io(void **state) {
  (void)state;
  char dir[4096];
  make_direct_io_dir(dir, sizeof dir);
  write_mixed(dir, CS_TF_DIRECT_AUTO, true);
  test_remove_tree(dir);
}

static void test_bulk_ordinary_writes(void **state) {
  (void)state;
  char dir[4096];
  make_direct_io_dir(dir, sizeof dir);
  write_mixed(dir, CS_TF_DIRECT_OFF, false); /* CCLSCOPE_DIRECT_IO=off */
  test_remove_tree(dir);
}

/* tmpfs accepts O_DIRECT without doing it: ordinary writes there. */
static void test_tmpfs_gets_ordinary_writes(void **state) {
  (void)state;
  struct statfs fs;
  assert_int_equal(statfs("/dev/shm", &fs), 0);
  assert_true(fs.f_type == TMPFS_MAGIC); /* Debian mounts tmpfs there */
  char dir[] = "/dev/shm/cclscope-test-XXXXXX";
  assert_non_null(mkdtemp(dir));
  write_mixed(dir, CS_TF_DIRECT_ON, false); /* even when asked for */
  test_remove_tree(dir);
}

/* One line of `len` bytes (`json`, spaces, newline) at the front of
 * page-aligned memory whose size is a whole number of pages, as the I/O
 * thread is handed them. */
static char *padded_line(const char *json, size_t len) {
  size_t cap = (len + 4095) / 4096 * 4096;
  char *data = aligned_alloc(4096, cap);
  assert_non_null(data);
  memset(data, ' ', len);
  memcpy(data, json, strlen(json));
  data[len - 1] = '\n';
  return data;
}

/* The file system refuses a direct write (here: a length that is not a
 * multiple of the block size, EINVAL): the I/O thread writes it the
 * ordinary way, and every later direct job too. */
static void test_refused_direct_write_falls_back(void **state) {
  (void)state;
  char dir[4096], path[4200];
  make_direct_io_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/refused.jsonl", dir);
  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  int direct_fd = open(path, O_WRONLY | O_DIRECT);
  assert_true(fd >= 0 && direct_fd >= 0);
  cs_trace_io *io = calloc(1, sizeof *io); /* on the heap, as above */
  cs_io_start(io, fd, direct_fd, NULL);
  assert_true(io->running && io->started); /* running our code already */
  cs_io_failure failure;
  char *odd = padded_line("{\"a\":1}", 100);
  assert_true(cs_io_queue(io, odd, 4096, 100, 0, 1, true, &failure));
  char *page = padded_line("{\"b\":2}", 4096);
  assert_true(cs_io_queue(io, page, 4096, 4096, 100, 1, true, &failure));
  assert_true(cs_io_sync(io, &failure));
  cs_io_counters c;
  cs_io_get_counters(io, &c);
  assert_true(c.direct_refused);
  assert_int_equal(c.refused_error, EINVAL);
  assert_int_equal(c.direct_bytes, 0);
  assert_int_equal(c.lines_lost, 0);
  cs_io_stop(io);
  free(io);
  close(direct_fd);
  close(fd);
  trace_t t;
  assert_true(trace_load(&t, path));
  assert_int_equal(t.count, 2);
  assert_int_equal((int)json_num(t.lines[0], "a"), 1);
  assert_int_equal((int)json_num(t.lines[1], "b"), 2);
  trace_free(&t);
  test_remove_tree(dir);
}

/* A disk that takes nothing until the test says so. */
static atomic_bool disk_released;

static ssize_t held_pwrite(int fd, const void *data, size_t len, off_t off) {
  while (!atomic_load(&disk_released)) {
    struct timespec ts = {0, 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return pwrite(fd, data, len, off);
}

static void *release_disk_later(void *arg) {
  (void)arg;
  struct timespec ts = {0, 100 * 1000 * 1000}; /* 100 ms */
  nanosleep(&ts, NULL);
  atomic_store(&disk_released, true);
  return NULL;
}

/* One 1 MiB chunk of a single line {"chunk":i}. */
static char *chunk_line(int i, size_t size) {
  char json[32];
  snprintf(json, sizeof json, "{\"chunk\":%d}", i);
  return padded_line(json, size);
}

/* CS_IO_MAX_QUEUED waiting for a disk that has stalled: the next chunk
 * makes the writer thread wait for room, and the wait is counted with its
 * time; nothing is lost and the order is kept. */
static void test_slow_disk_makes_the_writer_wait(void **state) {
  (void)state;
  char dir[4096], path[4200];
  make_direct_io_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/slow.jsonl", dir);
  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  assert_true(fd >= 0);
  atomic_store(&disk_released, false);
  cs_trace_io *io = calloc(1, sizeof *io);
  cs_io_start(io, fd, -1, NULL);
  io->write = held_pwrite; /* before the first job: seen by the thread */
  const size_t chunk = 1 << 20;
  const int full = (int)(CS_IO_MAX_QUEUED / chunk), chunks = full + 4;
  cs_io_failure failure;
  for (int i = 0; i < full; i++) /* the queue is full, nothing written */
    assert_true(cs_io_queue(io, chunk_line(i, chunk), chunk, chunk,
                            (uint64_t)i * chunk, 1, false, &failure));
  cs_io_counters c;
  cs_io_get_counters(io, &c);
  assert_int_equal(c.disk_waits, 0);
  pthread_t releaser;
  assert_int_equal(pthread_create(&releaser, NULL, release_disk_later, NULL),
                   0);
  for (int i = full; i < chunks; i++) /* the first of these waits */
    assert_true(cs_io_queue(io, chunk_line(i, chunk), chunk, chunk,
                            (uint64_t)i * chunk, 1, false, &failure));
  pthread_join(releaser, NULL);
  assert_true(cs_io_sync(io, &failure));
  cs_io_get_counters(io, &c);
  assert_true(c.disk_waits >= 1);
  assert_true(c.disk_wait_ns >= 50u * 1000 * 1000); /* most of the 100 ms */
  assert_int_equal(c.lines_lost, 0);
  cs_io_stop(io);
  free(io);
  close(fd);
  trace_t t;
  assert_true(trace_load(&t, path));
  assert_int_equal(t.count, chunks);
  for (int i = 0; i < chunks; i++)
    assert_int_equal((int)json_num(t.lines[i], "chunk"), i);
  trace_free(&t);
  test_remove_tree(dir);
}

/* The nice value of this process's thread named `name`, or INT_MIN when
 * there is none. */
static int nice_of_thread(const char *name) {
  DIR *d = opendir("/proc/self/task");
  assert_non_null(d);
  int nice = -1000;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char path[300], comm[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    if (fgets(comm, sizeof comm, f))
      comm[strcspn(comm, "\n")] = '\0';
    fclose(f);
    if (strcmp(comm, name) == 0) {
      errno = 0;
      nice = getpriority(PRIO_PROCESS, (id_t)atoi(e->d_name));
      assert_int_equal(errno, 0);
    }
  }
  closedir(d);
  return nice;
}

/* The I/O thread runs below the thread that started it, so that a writer
 * woken while it compresses gets the CPU at once (trace_io.c). */
static void test_io_thread_runs_below_the_writer(void **state) {
  (void)state;
  int fd = open("/dev/null", O_WRONLY);
  assert_true(fd >= 0);
  cs_trace_io *io = calloc(1, sizeof *io);
  cs_io_start(io, fd, -1, NULL);
  cs_io_failure failure;
  assert_true(cs_io_sync(io, &failure)); /* the thread has run */
  errno = 0;
  int mine = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
  assert_int_equal(errno, 0);
  int io_nice = nice_of_thread("cclscope-io");
  cs_io_stop(io);
  free(io);
  close(fd);
  int want = mine + 10 > 19 ? 19 : mine + 10;
  assert_int_equal(io_nice, want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lines_never_cross_pages),
      cmocka_unit_test(test_second_file_gets_new_name),
      cmocka_unit_test(test_unusable_folder_degrades),
      cmocka_unit_test(test_short_write_is_truncated),
      cmocka_unit_test(test_short_direct_write_is_truncated),
      cmocka_unit_test(test_full_disk_is_counted_in_the_file),
      cmocka_unit_test(test_full_disk_is_counted_with_direct_io),
      cmocka_unit_test(test_full_disk_is_counted_before_a_kill),
      cmocka_unit_test(test_bulk_direct_io),
      cmocka_unit_test(test_bulk_ordinary_writes),
      cmocka_unit_test(test_tmpfs_gets_ordinary_writes),
      cmocka_unit_test(test_refused_direct_write_falls_back),
      cmocka_unit_test(test_slow_disk_makes_the_writer_wait),
      cmocka_unit_test(test_io_thread_runs_below_the_writer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
