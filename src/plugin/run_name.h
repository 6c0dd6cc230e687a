/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/run_name.h — what names a run (its folder) and this process's
 * files in it.
 *
 * The run id is what every process of one job shares, so that a job's
 * files land in one folder and two jobs never share one. In order:
 *
 *  1. a job id the launcher or the user sets (launcher_vars in run_name.c:
 *     CCLSCOPE_JOB_ID, SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID,
 *     TORCHELASTIC_RUN_ID, Open MPI's job id, PMIX_NAMESPACE), then
 *     MASTER_ADDR:MASTER_PORT (torch.distributed's rendezvous address);
 *  2. else the first communicator's id (commHash, the same on every rank of
 *     a communicator, NCCL ABI v4 and later): "comm-<16 hex digits>";
 *  3. else (ABI v1 to v3 pass no communicator at init) the host and the
 *     process group: "<host>-pg<pgid>", which the processes one launcher
 *     starts on a node share.
 * Never a clock: two processes of one job may start seconds apart.
 *
 * Files: <kind>_<run>[_r<rank>]_<host>_pid<pid><extension>, the rank being
 * the launcher's global rank, else the rank in the first communicator.
 * docs/configuration.md documents both.
 */
#ifndef CCLSCOPE_RUN_NAME_H
#define CCLSCOPE_RUN_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { CS_RUN_ID_MAX = 128, CS_RUN_SOURCE_MAX = 32 };

typedef struct {
  char id[CS_RUN_ID_MAX];         /* safe for a file name */
  char source[CS_RUN_SOURCE_MAX]; /* the variable, "commId" or "processGroup" */
} cs_run_id;

/* Step 1: from the environment. False (id "") when no variable names the
 * job; the caller decides at the first init (cs_run_id_from_init). */
bool cs_run_id_from_launcher(cs_run_id *out);

/* Steps 2 and 3, at the first communicator's init. */
void cs_run_id_from_init(cs_run_id *out, bool has_comm, uint64_t comm_id,
                         const char *hostname, pid_t pgid);

/* Replace what a file name must not hold by '-'. */
void cs_run_name_sanitize(char *s);

/* The one stem of every file name: "<kind>_<run>_r<rank>_<host>_pid<pid>"
 * (no "_r<rank>" when rank < 0), then `ext` ("" for the trace, whose file
 * layer adds its own: trace_file.c). */
void cs_run_file_stem(char *out, size_t outlen, const char *kind,
                      const char *run_id, int rank, const char *hostname,
                      pid_t pid, const char *ext);

#endif
