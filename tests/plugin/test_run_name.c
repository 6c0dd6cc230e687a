/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_run_name.c — the run id and file names
 * (src/plugin/run_name.c, cs_config_name_run): every launcher variable wins
 * over the first communicator's id, in the documented order; without one,
 * the communicator's id (or, before ABI v4, the process group) names the
 * run, never the clock; file names carry the global rank.
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

#include "config.h"
#include "run_name.h"

/* Every variable that may name the run, in precedence order (the last two
 * only together). */
static const char *const job_vars[] = {"CCLSCOPE_JOB_ID",
                                       "SLURM_JOB_ID",
                                       "PBS_JOBID",
                                       "LSB_JOBID",
                                       "FLUX_JOB_ID",
                                       "TORCHELASTIC_RUN_ID",
                                       "OMPI_MCA_ess_base_jobid",
                                       "OMPI_MCA_orte_ess_jobid",
                                       "PMIX_NAMESPACE"};
enum { N_JOB_VARS = sizeof job_vars / sizeof job_vars[0] };

/* The launcher's rank variables (config.c load_launcher). */
static const char *const rank_vars[] = {
    "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
enum { N_RANK_VARS = sizeof rank_vars / sizeof rank_vars[0] };

#define COMM_ID UINT64_C(0x00c0ffee12345678)

static int clean_environment(void **state) {
  (void)state;
  for (int i = 0; i < N_JOB_VARS; i++)
    unsetenv(job_vars[i]);
  for (int i = 0; i < N_RANK_VARS; i++)
    unsetenv(rank_vars[i]);
  unsetenv("MASTER_ADDR");
  unsetenv("MASTER_PORT");
  unsetenv("CCLSCOPE_DIR");
  setenv("CCLSCOPE_HOSTNAME", "nodeA", 1);
  return 0;
}

/* What a process of a job gets at its first init with communicator
 * COMM_ID, rank `comm_rank`. */
static void named_config(cs_config *c, bool has_comm, int comm_rank) {
  cs_config_load(c);
  cs_config_name_run(c, has_comm, COMM_ID, comm_rank);
}

static void test_each_launcher_variable_wins_over_the_communicator(void **s) {
  (void)s;
  for (int i = 0; i < N_JOB_VARS; i++) {
    char value[64];
    snprintf(value, sizeof value, "job/%d", i);
    setenv(job_vars[i], value, 1);
    cs_config c;
    named_config(&c, true, 3);
    char want[64];
    snprintf(want, sizeof want, "job-%d", i); /* safe for a file name */
    assert_string_equal(c.run_id, want);
    assert_string_equal(c.run_id_source, job_vars[i]);
    char dir[80];
    snprintf(dir, sizeof dir, "cclscope-%s", want);
    assert_string_equal(c.dir, dir);
    unsetenv(job_vars[i]);
  }
  setenv("MASTER_ADDR", "10.1.2.3", 1);
  setenv("MASTER_PORT", "29500", 1);
  cs_config c;
  named_config(&c, true, 3);
  assert_string_equal(c.run_id, "10.1.2.3-29500");
  assert_string_equal(c.run_id_source, "MASTER_ADDR:MASTER_PORT");
}

static void test_precedence_between_launchers(void **s) {
  (void)s;
  /* Every variable set: each one in turn is the first, and wins. */
  setenv("MASTER_ADDR", "master", 1);
  setenv("MASTER_PORT", "1234", 1);
  for (int i = 0; i < N_JOB_VARS; i++)
    setenv(job_vars[i], job_vars[i], 1);
  for (int i = 0; i < N_JOB_VARS; i++) {
    cs_run_id run;
    assert_true(cs_run_id_from_launcher(&run));
    assert_string_equal(run.source, job_vars[i]);
    unsetenv(job_vars[i]);
  }
  cs_run_id run;
  assert_true(cs_run_id_from_launcher(&run));
  assert_string_equal(run.source, "MASTER_ADDR:MASTER_PORT");
  /* torchrun's default rendezvous id "none" and empty values name nothing;
   * an address without a port is not a job. */
  setenv("TORCHELASTIC_RUN_ID", "none", 1);
  setenv("SLURM_JOB_ID", "", 1);
  unsetenv("MASTER_PORT");
  assert_false(cs_run_id_from_launcher(&run));
  assert_string_equal(run.id, "");
}

static void
test_without_launcher_the_first_communicator_names_the_run(void **s) {
  (void)s;
  cs_config c;
  cs_config_load(&c);
  /* Not named before the first init: no clock, no folder yet. */
  assert_string_equal(c.run_id, "");
  assert_string_equal(c.dir, "");
  cs_config_name_run(&c, true, COMM_ID, 5);
  assert_string_equal(c.run_id, "comm-00c0ffee12345678");
  assert_string_equal(c.run_id_source, "commId");
  assert_string_equal(c.dir, "cclscope-comm-00c0ffee12345678");
  assert_int_equal(c.file_rank, 5); /* no launcher rank: the comm's */
  /* Another process of the same job, whatever its start time or rank. */
  cs_config d;
  named_config(&d, true, 0);
  assert_string_equal(d.run_id, c.run_id);
  assert_string_equal(d.dir, c.dir);
  /* Another job: another communicator id, another folder. */
  cs_config e;
  cs_config_load(&e);
  cs_config_name_run(&e, true, COMM_ID + 1, 5);
  assert_string_not_equal(e.dir, c.dir);
  /* CCLSCOPE_DIR stays the folder. */
  setenv("CCLSCOPE_DIR", "/tmp/mine", 1);
  named_config(&d, true, 0);
  assert_string_equal(d.dir, "/tmp/mine");
  assert_string_equal(d.run_id, c.run_id);
}

static void test_before_abi_v4_the_process_group_names_the_run(void **s) {
  (void)s;
  cs_config c;
  named_config(&c, false, 0);
  char want[64];
  snprintf(want, sizeof want, "nodeA-pg%d", (int)getpgrp());
  assert_string_equal(c.run_id, want);
  assert_string_equal(c.run_id_source, "processGroup");
  assert_int_equal(c.file_rank, -1); /* no launcher rank, no comm rank */
}

static void test_file_names_carry_the_global_rank(void **s) {
  (void)s;
  for (int i = 0; i < N_RANK_VARS; i++) {
    setenv(rank_vars[i], "12", 1);
    cs_config c;
    named_config(&c, true, 3);
    assert_int_equal(c.file_rank, 12); /* the launcher's, not the comm's */
    unsetenv(rank_vars[i]);
  }
  char name[256];
  cs_run_file_stem(name, sizeof name, "trace", "job-1", 12, "nodeA", 4242, "");
  assert_string_equal(name, "trace_job-1_r12_nodeA_pid4242");
  cs_run_file_stem(name, sizeof name, "inflight", "job-1", -1, "nodeA", 4242,
                   ".json");
  assert_string_equal(name, "inflight_job-1_nodeA_pid4242.json");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(
          test_each_launcher_variable_wins_over_the_communicator,
          clean_environment),
      cmocka_unit_test_setup(test_precedence_between_launchers,
                             clean_environment),
      cmocka_unit_test_setup(
          test_without_launcher_the_first_communicator_names_the_run,
          clean_environment),
      cmocka_unit_test_setup(test_before_abi_v4_the_process_group_names_the_run,
                             clean_environment),
      cmocka_unit_test_setup(test_file_names_carry_the_global_rank,
                             clean_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
