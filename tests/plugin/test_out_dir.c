/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_out_dir.c — an output folder opened once (out_dir.h):
 * a new file is never created through a link or over an existing name; a
 * replaced file replaces a planted link instead of writing through it and
 * leaves no temporary behind, even when the rename fails; the O_DIRECT
 * reopen accepts only the very same file; a symbolically linked folder is
 * followed with one warning when the link is ours or root's, and refused
 * with one warning otherwise; intermediate links are followed silently.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "out_dir.h"
#include "planted_links.h"
#include "trace_read.h"

#define OTHER_UID 65534 /* nobody */

/* A scratch tree: `out` (the output folder) and `victims` beside it, on
 * the same file system (hard links need that). */
typedef struct {
  char root[4096];
  char out[4200];
  char victims[4200];
} scratch_t;

static void scratch_make(scratch_t *s) {
  test_make_tmpdir(s->root, sizeof s->root);
  snprintf(s->out, sizeof s->out, "%s/out", s->root);
  snprintf(s->victims, sizeof s->victims, "%s/victims", s->root);
  assert_int_equal(mkdir(s->out, 0755), 0);
  assert_int_equal(mkdir(s->victims, 0755), 0);
  cs_log_set_logger(log_keeper);
  cs_log_set_warning_sink(log_keeper_keep);
  log_keeper_clear();
  cs_log_reset_once();
}

static void scratch_remove(scratch_t *s) {
  assert_int_equal(log_keeper_logger_warnings(), 0);
  cs_log_set_warning_sink(NULL);
  cs_log_forget_logger();
  test_remove_tree(s->root);
}

static void path_in(char *out, size_t outlen, const char *dir,
                    const char *name) {
  snprintf(out, outlen, "%s/%s", dir, name);
}

static void test_create_never_opens_a_taken_name(void **state) {
  (void)state;
  scratch_t s;
  scratch_make(&s);
  victim_t by_symlink, by_hardlink;
  victim_make(&by_symlink, s.victims, "a");
  victim_make(&by_hardlink, s.victims, "b");
  char where[4400];
  path_in(where, sizeof where, s.out, "sym");
  victim_plant(&by_symlink, PLANT_SYMLINK, where);
  path_in(where, sizeof where, s.out, "hard");
  victim_plant(&by_hardlink, PLANT_HARDLINK, where);
  cs_out_dir d;
  cs_out_dir_init(&d, s.out, "CCLSCOPE_DIR");
  assert_int_equal(cs_out_dir_create(&d, "sym"), -1);
  assert_int_equal(errno, EEXIST);
  assert_int_equal(cs_out_dir_create(&d, "hard"), -1);
  assert_int_equal(errno, EEXIST);
  int fd = cs_out_dir_create(&d, "fresh");
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "x", 1), 1);
  close(fd);
  path_in(where, sizeof where, s.out, "fresh");
  assert_own_regular_file(where);
  victim_assert_intact(&by_symlink);
  victim_assert_intact(&by_hardlink);
  assert_int_equal(log_keeper_count(""), 0); /* a plain folder: no word */
  cs_out_dir_close(&d);
  scratch_remove(&s);
}

static void replace_over(plant_kind kind) {
  scratch_t s;
  scratch_make(&s);
  victim_t v;
  victim_make(&v, s.victims, "v");
  char final[4400];
  path_in(final, sizeof final, s.out, "snapshot.json");
  victim_plant(&v, kind, final);
  cs_out_dir d;
  cs_out_dir_init(&d, s.out, "CCLSCOPE_DIR");
  assert_true(cs_out_dir_replace(&d, "snapshot.json", "ours\n", 5));
  assert_true(cs_out_dir_replace(&d, "snapshot.json", "ours again\n", 11));
  victim_assert_intact(&v);
  assert_own_regular_file(final);
  char text[64];
  read_small_file(final, text, sizeof text);
  assert_string_equal(text, "ours again\n");
  struct stat st;
  assert_int_equal(stat(final, &st), 0);
  mode_t mask = umask(0);
  umask(mask);
  assert_int_equal(st.st_mode & 0777, 0644 & ~mask);
  assert_int_equal(count_temporaries(s.out), 0);
  assert_int_equal(count_entries(s.out), 1);
  cs_out_dir_close(&d);
  scratch_remove(&s);
}

static void test_replace_replaces_a_symlink(void **state) {
  (void)state;
  replace_over(PLANT_SYMLINK);
}

static void test_replace_replaces_a_hard_link(void **state) {
  (void)state;
  replace_over(PLANT_HARDLINK);
}

/* The final name is a folder with something in it: the rename fails, the
 * temporary goes. */
static void test_replace_failure_leaves_nothing(void **state) {
  (void)state;
  scratch_t s;
  scratch_make(&s);
  char final[4400], inside[4500];
  path_in(final, sizeof final, s.out, "metrics.prom");
  assert_int_equal(mkdir(final, 0755), 0);
  path_in(inside, sizeof inside, final, "keep");
  FILE *f = fopen(inside, "w");
  assert_non_null(f);
  fclose(f);
  cs_out_dir d;
  cs_out_dir_init(&d, s.out, "CCLSCOPE_DIR");
  errno = 0;
  assert_false(cs_out_dir_replace(&d, "metrics.prom", "text\n", 5));
  assert_int_not_equal(errno, 0);
  assert_int_equal(count_temporaries(s.out), 0);
  assert_int_equal(count_entries(s.out), 1);
  cs_out_dir_close(&d);
  scratch_remove(&s);
}

static void test_reopen_only_the_same_file(void **state) {
  (void)state;
  scratch_t s;
  scratch_make(&s);
  cs_out_dir d;
  cs_out_dir_init(&d, s.out, "CCLSCOPE_DIR");
  int fd = cs_out_dir_create(&d, "trace.jsonl");
  assert_true(fd >= 0);
  /* Still the same file: a second descriptor on it. */
  int again = cs_out_dir_reopen(&d, "trace.jsonl", fd, O_WRONLY);
  assert_true(again >= 0);
  struct stat a, b;
  assert_int_equal(fstat(fd, &a), 0);
  assert_int_equal(fstat(again, &b), 0);
  assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
  assert_false(fcntl(again, F_GETFL) & O_NONBLOCK);
  close(again);

  char name[4400], moved[4400];
  path_in(name, sizeof name, s.out, "trace.jsonl");
  path_in(moved, sizeof moved, s.victims, "moved-away");
  /* Another file put at the name: refused. */
  assert_int_equal(rename(name, moved), 0);
  victim_t v;
  victim_make(&v, s.victims, "other");
  victim_plant(&v, PLANT_HARDLINK, name);
  assert_int_equal(cs_out_dir_reopen(&d, "trace.jsonl", fd, O_WRONLY), -1);
  assert_int_equal(errno, ESTALE);
  /* A link to the very file: not followed either. */
  assert_int_equal(unlink(name), 0);
  assert_int_equal(symlink(moved, name), 0);
  assert_int_equal(cs_out_dir_reopen(&d, "trace.jsonl", fd, O_WRONLY), -1);
  assert_int_equal(errno, ELOOP);
  /* A FIFO: refused without blocking (nobody reads it). */
  assert_int_equal(unlink(name), 0);
  assert_int_equal(mkfifo(name, 0644), 0);
  assert_int_equal(cs_out_dir_reopen(&d, "trace.jsonl", fd, O_WRONLY), -1);
  victim_assert_intact(&v);
  close(fd);
  cs_out_dir_close(&d);
  scratch_remove(&s);
}

/* Folders are made with their parents; a link among the parents is
 * followed without a word. */
static void test_parents_created_intermediate_links_silent(void **state) {
  (void)state;
  scratch_t s;
  scratch_make(&s);
  char via[4400], deep[4600], real[4600];
  path_in(via, sizeof via, s.root, "via");
  assert_int_equal(symlink(s.out, via), 0);
  snprintf(deep, sizeof deep, "%s/new/sub", via);
  snprintf(real, sizeof real, "%s/new/sub/f", s.out);
  cs_out_dir d;
  cs_out_dir_init(&d, deep, "CCLSCOPE_DIR");
  int fd = cs_out_dir_create(&d, "f");
  assert_true(fd >= 0);
  close(fd);
  assert_own_regular_file(real);
  assert_int_equal(log_keeper_count(""), 0);
  cs_out_dir_close(&d);
  scratch_remove(&s);
}

static void test_folder_link_of_ours_followed_with_one_warning(void **state) {
  (void)state;
  scratch_t s;
  scratch_make(&s);
  char link_path[4400], real[PATH_MAX], file[4400];
  path_in(link_path, sizeof link_path, s.root, "linked");
  assert_int_equal(symlink(s.out, link_path), 0);
  assert_non_null(realpath(s.out, real));
  char with_slashes[4500];
  snprintf(with_slashes, sizeof with_slashes, "%s//", link_path);
  cs_out_dir d;
  cs_out_dir_init(&d, with_slashes, "CCLSCOPE_DIR"); /* still the link */
  assert_true(cs_out_dir_open(&d));
  assert_true(cs_out_dir_open(&d)); /* once: no second warning */
  assert_true(cs_out_dir_replace(&d, "x.prom", "x\n", 2));
  assert_int_equal(log_keeper_count("is a symbolic link to"), 1);
  assert_int_equal(log_keeper_count(""), 1);
  const char *w = log_keeper_find("is a symbolic link to");
  assert_non_null(strstr(w, "CCLSCOPE_DIR"));
  assert_non_null(strstr(w, link_path));
  assert_non_null(strstr(w, real));
  assert_non_null(strstr(w, "writing there"));
  path_in(file, sizeof file, s.out, "x.prom");
  assert_own_regular_file(file);
  cs_out_dir_close(&d);
  scratch_remove(&s);
}

/* The rule itself, whoever runs the test. */
static void test_link_owner_policy(void **state) {
  (void)state;
  assert_true(cs_out_dir_trusts_link_owner(geteuid()));
  assert_true(cs_out_dir_trusts_link_owner(0));
  uid_t other = geteuid() == OTHER_UID ? OTHER_UID + 1 : OTHER_UID;
  assert_false(cs_out_dir_trusts_link_owner(other));
}

/* A folder link owned by someone else: refused, one warning, nothing
 * written. Making such a link needs root (lchown); as another user the
 * test checks that it cannot be made, and test_link_owner_policy covers
 * the rule. */
static void test_folder_link_of_others_refused(void **state) {
  (void)state;
  scratch_t s;
  scratch_make(&s);
  char link_path[4400];
  path_in(link_path, sizeof link_path, s.root, "planted");
  assert_int_equal(symlink(s.out, link_path), 0);
  if (geteuid() != 0) {
    assert_int_equal(lchown(link_path, OTHER_UID, (gid_t)-1), -1);
    print_message("not root: a link owned by another user cannot be made "
                  "here; the rule is checked by test_link_owner_policy\n");
    scratch_remove(&s);
    return;
  }
  assert_int_equal(lchown(link_path, OTHER_UID, OTHER_UID), 0);
  cs_out_dir d;
  cs_out_dir_init(&d, link_path, "CCLSCOPE_DIR");
  assert_false(cs_out_dir_open(&d));
  assert_int_equal(cs_out_dir_create(&d, "trace.jsonl"), -1);
  assert_false(cs_out_dir_replace(&d, "x.prom", "x\n", 2));
  assert_int_equal(log_keeper_count(""), 1);
  const char *w = log_keeper_find("owned by uid 65534");
  assert_non_null(w);
  assert_non_null(strstr(w, link_path));
  assert_non_null(strstr(w, "not followed"));
  assert_int_equal(count_entries(s.out), 0);
  cs_out_dir_close(&d);
  /* A trailing slash must not make the link an intermediate component. */
  char with_slash[4500];
  snprintf(with_slash, sizeof with_slash, "%s/", link_path);
  cs_out_dir_init(&d, with_slash, "CCLSCOPE_DIR");
  assert_false(cs_out_dir_open(&d));
  assert_int_equal(log_keeper_count("owned by uid 65534"), 2);
  assert_int_equal(count_entries(s.out), 0);
  scratch_remove(&s);
}

/* A plain file where the folder should be: refused, said once. */
static void test_not_a_folder(void **state) {
  (void)state;
  scratch_t s;
  scratch_make(&s);
  char file[4400];
  path_in(file, sizeof file, s.root, "plain");
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fclose(f);
  cs_out_dir d;
  cs_out_dir_init(&d, file, "CCLSCOPE_DIR");
  assert_false(cs_out_dir_open(&d));
  assert_false(cs_out_dir_open(&d));
  assert_int_equal(log_keeper_count("cannot use CCLSCOPE_DIR"), 1);
  cs_out_dir_close(&d);
  scratch_remove(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_never_opens_a_taken_name),
      cmocka_unit_test(test_replace_replaces_a_symlink),
      cmocka_unit_test(test_replace_replaces_a_hard_link),
      cmocka_unit_test(test_replace_failure_leaves_nothing),
      cmocka_unit_test(test_reopen_only_the_same_file),
      cmocka_unit_test(test_parents_created_intermediate_links_silent),
      cmocka_unit_test(test_folder_link_of_ours_followed_with_one_warning),
      cmocka_unit_test(test_link_owner_policy),
      cmocka_unit_test(test_folder_link_of_others_refused),
      cmocka_unit_test(test_not_a_folder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
