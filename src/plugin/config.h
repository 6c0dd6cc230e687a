/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/config.h — cclscope's configuration, read from CCLSCOPE_*
 * environment variables once per session (docs/configuration.md lists them).
 * Values are read strictly (config_parse.h); an invalid value gets exactly
 * one warning naming the variable, the value and why, and the default.
 */
#ifndef CCLSCOPE_CONFIG_H
#define CCLSCOPE_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Event-mask presets (NCCL type bits). */
#define CS_MASK_MINIMAL 0x1046 /* coll, p2p, kernelch, cecoll */
#define CS_MASK_DEFAULT                                                        \
  0xFF4F                    /* everything but proxystep, proxyctrl, netplugin */
#define CS_MASK_ALL 0x1FFFF /* every bit, incl. RCCL's ProxyDiag (1<<16) */
/* What metrics need: coll, p2p, proxyop, proxystep, kernelch, cecoll,
 * kernelphase (the default when CCLSCOPE_MODE=metrics). */
#define CS_MASK_METRICS 0x905E

typedef struct {
  bool trace;   /* write JSONL traces */
  bool metrics; /* aggregate metrics (docs/metrics.md) */
  int mask;     /* activation mask requested from NCCL */
  const char
      *mask_source; /* "CCLSCOPE_MASK", "NCCL_PROFILE_EVENT_MASK", "default" */
  char dir[PATH_MAX]; /* output folder */
  /* The run id (run_name.h): from the launcher, else "" until the first
   * init names it (cs_config_name_run); `dir` is "" until then too unless
   * CCLSCOPE_DIR is set. */
  char run_id[128];
  char run_id_source[32]; /* the variable, "commId" or "processGroup" */
  int file_rank; /* the rank in file names, -1 = none (cs_config_name_run) */
  char hostname[256];
  size_t ring_bytes;           /* per-thread ring size */
  double reclaim_timeout_s;    /* never-stopped ProxyOps are reclaimed after */
  double flush_interval_s;     /* how stale the file may be */
  double timing_timeout_s;     /* give up waiting for a collective's children */
  unsigned max_live_events;    /* cap on events in flight in the writer */
  double metrics_window_s;     /* aggregation window */
  unsigned metrics_max_series; /* per table */
  char prom_file[PATH_MAX];    /* Prometheus textfile ("" = default/none) */
  char prom_addr[64];          /* HTTP /metrics: address */
  int prom_port;               /* HTTP /metrics: port, 0 = off */
  /* OTLP request timeout (OTEL_EXPORTER_OTLP_METRICS_TIMEOUT, else
   * OTEL_EXPORTER_OTLP_TIMEOUT), milliseconds, 1 to 600000. */
  long otlp_timeout_ms;
  /* The launcher's view (load_launcher in config.c), -1 when none says. */
  int global_rank;             /* RANK, SLURM_PROCID, ... */
  char global_rank_source[24]; /* the variable it came from, "" */
  int local_rank;              /* LOCAL_RANK, SLURM_LOCALID, ... */
  int world_size;              /* WORLD_SIZE, SLURM_NTASKS, ... */
  /* CCLSCOPE_EXIT_DEADLINE: the longest finalize or process exit waits for
   * network peers (OTLP collector, /metrics client), seconds, 0 to 60;
   * 0 = never wait. */
  double exit_deadline_s;
  char summary[16]; /* off | log | stderr */
  /* Sampling and filters (src/plugin/hot/sampling.h). 1 = keep everything. */
  unsigned sample_coll;     /* CCLSCOPE_SAMPLE: 1 in N Coll/CeColl instances */
  unsigned sample_p2p;      /* CCLSCOPE_SAMPLE_P2P (default: sample_coll) */
  unsigned sample_steps;    /* CCLSCOPE_SAMPLE_STEPS: 1 in N ProxySteps */
  uint64_t min_bytes;       /* CCLSCOPE_MIN_BYTES: smaller Coll/P2p left out */
  bool start_paused;        /* CCLSCOPE_START=paused */
  double hang_timeout_s;    /* CCLSCOPE_HANG_TIMEOUT, 0 = watchdog off */
  bool nvtx;                /* CCLSCOPE_NVTX=1 */
  bool cupti;               /* CCLSCOPE_CUPTI=1 */
  bool metrics_global_rank; /* CCLSCOPE_METRICS_GLOBAL_RANK=1: a label */
  char roctx[8];            /* CCLSCOPE_ROCTX: off | on (under RCCL) | force */
  char clock[16];           /* auto | tsc | monotonic */
  char direct_io[8];        /* CCLSCOPE_DIRECT_IO: auto | on | off */
  char host[16];            /* auto | nccl | rccl */
  /* Metrics windows and textfile (docs/metrics.md). */
  unsigned metrics_window_events; /* CCLSCOPE_METRICS_WINDOW_EVENTS, 0 = off */
  bool prom_keep; /* CCLSCOPE_PROM_KEEP=1: leave the textfile at exit */
  int zstd_level; /* CCLSCOPE_COMPRESS=zstd[:level]: 1-19 or -1 to -5, 0 = plain
                   */
  bool binary_trace; /* CCLSCOPE_FORMAT=binary: a .cst file, not JSONL */
} cs_config;

/* Read the environment into `c` (defaults for anything unset or invalid). */
void cs_config_load(cs_config *c);

/* At the first communicator's init: the run id when no launcher named it,
 * the folder after it, and the rank for file names (the launcher's, else
 * the one in that communicator when NCCL passes it). */
void cs_config_name_run(cs_config *c, bool has_comm, uint64_t comm_id,
                        int comm_rank);

/* Parse a mask expression: names, presets, numbers (decimal or 0x hex),
 * "-name" to remove. Returns false (and a reason in err) when invalid,
 * including a removal before anything to remove from ("-1", "-coll") and a
 * result of 0 other than by "none" or 0 ("coll,-coll"). */
bool cs_config_parse_mask(const char *text, int *mask, char *err,
                          size_t errlen);

/* Parse "4M", "65536", "1G"... into bytes. */
bool cs_config_parse_size(const char *text, size_t *bytes);

/* Write a human-readable list of mask bits ("coll,p2p,...") into out. */
void cs_config_mask_names(int mask, char *out, size_t outlen);

#endif
