/*
 * src/plugin/launcher_rank.c — the job rank the launcher gave this process
 * (see launcher_rank.h).
 *
 * Order: torchrun's RANK first (under SLURM, torchrun may run one task per
 * node whose SLURM_PROCID is then the node's index, not the GPU's), then
 * SLURM, Open MPI, PMIx, and PMI (MPICH/Hydra, Intel MPI).
 */
#include "launcher_rank.h"

#include <stddef.h>
#include <stdlib.h>

static const char *const global_rank_vars[] = {
    "RANK",      "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
    "PMIX_RANK", "PMI_RANK",     NULL};
static const char *const local_rank_vars[] = {"LOCAL_RANK", "SLURM_LOCALID",
                                              "OMPI_COMM_WORLD_LOCAL_RANK",
                                              "MPI_LOCALRANKID", NULL};
static const char *const world_size_vars[] = {
    "WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL};

/* A rank is decimal digits only, below 2^31 (no sign, no spaces). */
static int parse_rank(const char *s) {
  if (s == NULL || *s == '\0')
    return -1;
  long v = 0;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9')
      return -1;
    v = v * 10 + (*p - '0');
    if (v > 0x7fffffffL)
      return -1;
  }
  return (int)v;
}

static int first_valid(const char *const *vars, const char **source) {
  for (int i = 0; vars[i] != NULL; i++) {
    int v = parse_rank(getenv(vars[i]));
    if (v >= 0) {
      *source = vars[i];
      return v;
    }
  }
  *source = NULL;
  return -1;
}

void cs_launcher_rank_read(cs_launcher_rank *out) {
  out->global_rank = first_valid(global_rank_vars, &out->rank_source);
  out->local_rank = first_valid(local_rank_vars, &out->local_source);
  out->world_size = first_valid(world_size_vars, &out->size_source);
}
