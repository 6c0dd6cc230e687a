/*
 * src/plugin/launcher_rank.h — which rank of the job this process is, as
 * its launcher says.
 *
 * Owns: reading the launchers' environment variables (torchrun, SLURM,
 * Open MPI, PMIx, MPICH/Hydra) once at session start, strictly (decimal
 * digits only), and naming the variable each value came from, so a trace
 * can say which GPU process it is across all of its communicators
 * (docs/trace-format.md, the process record).
 */
#ifndef CCLSCOPE_LAUNCHER_RANK_H
#define CCLSCOPE_LAUNCHER_RANK_H

typedef struct {
  int global_rank;          /* -1 when no launcher variable says */
  int local_rank;           /* rank on this node, -1 when unknown */
  int world_size;           /* -1 when unknown */
  const char *rank_source;  /* the variable's name, or NULL */
  const char *local_source; /* the variable's name, or NULL */
  const char *size_source;  /* the variable's name, or NULL */
} cs_launcher_rank;

/* Reads the environment (first variable of each list that holds a valid
 * number wins; see launcher_rank.c for the order). */
void cs_launcher_rank_read(cs_launcher_rank *out);

#endif
