/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/run_name.c — the run id (from the launcher, else the first
 * communicator) and the stem of every file name. See run_name.h.
 */
#include "run_name.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Variables that name the job, most specific first. CCLSCOPE_JOB_ID is the
 * user's override; Open MPI 4 and earlier give the job id in its MCA
 * variables, Open MPI 5 (PRRTE) and other PMIx launchers a namespace. */
static const char *const launcher_vars[] = {"CCLSCOPE_JOB_ID",
                                            "SLURM_JOB_ID",
                                            "PBS_JOBID",
                                            "LSB_JOBID",
                                            "FLUX_JOB_ID",
                                            "TORCHELASTIC_RUN_ID",
                                            "OMPI_MCA_ess_base_jobid",
                                            "OMPI_MCA_orte_ess_jobid",
                                            "PMIX_NAMESPACE",
                                            NULL};

void cs_run_name_sanitize(char *s) {
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.' && *s != '_')
      *s = '-';
}

/* Set, not empty, and not "none" (torchrun's default rendezvous id). */
static const char *job_value(const char *var) {
  const char *v = getenv(var);
  return v && *v && strcmp(v, "none") != 0 ? v : NULL;
}

bool cs_run_id_from_launcher(cs_run_id *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; launcher_vars[i]; i++) {
    const char *v = job_value(launcher_vars[i]);
    if (v) {
      snprintf(out->id, sizeof out->id, "%s", v);
      snprintf(out->source, sizeof out->source, "%s", launcher_vars[i]);
      cs_run_name_sanitize(out->id);
      return true;
    }
  }
  /* torch.distributed without torchelastic: the rendezvous address is
   * unique among the jobs running at one time. */
  const char *addr = job_value("MASTER_ADDR");
  const char *port = job_value("MASTER_PORT");
  if (addr && port) {
    snprintf(out->id, sizeof out->id, "%s:%s", addr, port);
    snprintf(out->source, sizeof out->source, "MASTER_ADDR:MASTER_PORT");
    cs_run_name_sanitize(out->id);
    return true;
  }
  return false;
}

void cs_run_id_from_init(cs_run_id *out, bool has_comm, uint64_t comm_id,
                         const char *hostname, pid_t pgid) {
  memset(out, 0, sizeof *out);
  if (has_comm) {
    snprintf(out->id, sizeof out->id, "comm-%016" PRIx64, comm_id);
    snprintf(out->source, sizeof out->source, "commId");
  } else {
    snprintf(out->id, sizeof out->id, "%s-pg%d", hostname, (int)pgid);
    snprintf(out->source, sizeof out->source, "processGroup");
  }
  cs_run_name_sanitize(out->id);
}

void cs_run_file_stem(char *out, size_t outlen, const char *kind,
                      const char *run_id, int rank, const char *hostname,
                      pid_t pid, const char *ext) {
  if (rank >= 0)
    snprintf(out, outlen, "%s_%s_r%d_%s_pid%d%s", kind, run_id, rank, hostname,
             (int)pid, ext);
  else
    snprintf(out, outlen, "%s_%s_%s_pid%d%s", kind, run_id, hostname, (int)pid,
             ext);
}
