/*
 * tests/plugin/test_launcher_rank.c — the job rank the launcher gave the
 * process (src/plugin/launcher_rank.c): which variable wins, strict
 * parsing, and nothing when no launcher says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "launcher_rank.h"

static const char *const all_vars[] = {"RANK",
                                       "SLURM_PROCID",
                                       "OMPI_COMM_WORLD_RANK",
                                       "PMIX_RANK",
                                       "PMI_RANK",
                                       "LOCAL_RANK",
                                       "SLURM_LOCALID",
                                       "OMPI_COMM_WORLD_LOCAL_RANK",
                                       "MPI_LOCALRANKID",
                                       "WORLD_SIZE",
                                       "SLURM_NTASKS",
                                       "OMPI_COMM_WORLD_SIZE",
                                       "PMI_SIZE",
                                       NULL};

static int clear_all(void **state) {
  (void)state;
  for (int i = 0; all_vars[i] != NULL; i++)
    unsetenv(all_vars[i]);
  return 0;
}

static void test_nothing_set(void **state) {
  (void)state;
  cs_launcher_rank l;
  cs_launcher_rank_read(&l);
  assert_int_equal(l.global_rank, -1);
  assert_int_equal(l.local_rank, -1);
  assert_int_equal(l.world_size, -1);
  assert_null(l.rank_source);
  assert_null(l.local_source);
  assert_null(l.size_source);
}

static void test_torchrun(void **state) {
  (void)state;
  setenv("RANK", "13", 1);
  setenv("LOCAL_RANK", "5", 1);
  setenv("WORLD_SIZE", "64", 1);
  cs_launcher_rank l;
  cs_launcher_rank_read(&l);
  assert_int_equal(l.global_rank, 13);
  assert_string_equal(l.rank_source, "RANK");
  assert_int_equal(l.local_rank, 5);
  assert_string_equal(l.local_source, "LOCAL_RANK");
  assert_int_equal(l.world_size, 64);
  assert_string_equal(l.size_source, "WORLD_SIZE");
}

/* torchrun under SLURM: one task per node (SLURM_PROCID = the node), the
 * GPU's rank is torchrun's. */
static void test_torchrun_wins_over_slurm(void **state) {
  (void)state;
  setenv("SLURM_PROCID", "1", 1);
  setenv("SLURM_LOCALID", "0", 1);
  setenv("SLURM_NTASKS", "2", 1);
  setenv("RANK", "9", 1);
  setenv("LOCAL_RANK", "1", 1);
  cs_launcher_rank l;
  cs_launcher_rank_read(&l);
  assert_int_equal(l.global_rank, 9);
  assert_string_equal(l.rank_source, "RANK");
  assert_int_equal(l.local_rank, 1);
  assert_int_equal(l.world_size, 2); /* no WORLD_SIZE: SLURM's */
  assert_string_equal(l.size_source, "SLURM_NTASKS");
}

static void test_mpi_launchers(void **state) {
  (void)state;
  setenv("OMPI_COMM_WORLD_RANK", "7", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
  setenv("PMI_RANK", "2", 1); /* later in the order */
  cs_launcher_rank l;
  cs_launcher_rank_read(&l);
  assert_int_equal(l.global_rank, 7);
  assert_string_equal(l.rank_source, "OMPI_COMM_WORLD_RANK");
  assert_int_equal(l.local_rank, 3);
  unsetenv("OMPI_COMM_WORLD_RANK");
  cs_launcher_rank_read(&l);
  assert_int_equal(l.global_rank, 2);
  assert_string_equal(l.rank_source, "PMI_RANK");
}

/* A value that is not plain decimal digits below 2^31 is not a rank: the
 * next variable is asked. */
static void test_strict_parsing(void **state) {
  (void)state;
  static const char *const bad[] = {"",     "-1",  "+3",         " 4", "4 ",
                                    "0x10", "1e3", "2147483648", "abc"};
  setenv("SLURM_PROCID", "6", 1);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    setenv("RANK", bad[i], 1);
    cs_launcher_rank l;
    cs_launcher_rank_read(&l);
    assert_int_equal(l.global_rank, 6);
    assert_string_equal(l.rank_source, "SLURM_PROCID");
  }
  setenv("RANK", "2147483647", 1);
  cs_launcher_rank l;
  cs_launcher_rank_read(&l);
  assert_int_equal(l.global_rank, 2147483647);
  setenv("RANK", "0", 1);
  cs_launcher_rank_read(&l);
  assert_int_equal(l.global_rank, 0);
  assert_string_equal(l.rank_source, "RANK");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_nothing_set, clear_all),
      cmocka_unit_test_setup(test_torchrun, clear_all),
      cmocka_unit_test_setup(test_torchrun_wins_over_slurm, clear_all),
      cmocka_unit_test_setup(test_mpi_launchers, clear_all),
      cmocka_unit_test_setup(test_strict_parsing, clear_all),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
