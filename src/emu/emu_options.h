/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_options.h — every command-line option of ncclemu in one
 * struct, with its default. Parsed by emu_options.c, read everywhere else.
 */
#ifndef NCCLEMU_OPTIONS_H
#define NCCLEMU_OPTIONS_H

#include "emu_common.h"

/* Exit statuses of the ncclemu command (and its workers). */
enum {
  EMU_EXIT_OK = 0,
  EMU_EXIT_FAIL = 1,  /* a check failed, a worker crashed, load failed */
  EMU_EXIT_USAGE = 2, /* bad command line */
  /* worker -> supervisor only (never the command's own status): */
  EMU_WORKER_CHECK_FAILED = 3,
  EMU_WORKER_LOAD_FAILED = 4
};

/* init/finalize may join the plugin's threads while they write the last
 * records: CPU work that ASan and TSan make 5-15 times slower. A sanitizer
 * build of ncclemu (which runs a sanitizer build of the plugin) allows
 * them more time by default; the plain builds judge them at 2 s. */
#if CCLSCOPE_SANITIZER_BUILD
#define EMU_DEFAULT_MAX_LIFECYCLE_MS 10000.0
#else
#define EMU_DEFAULT_MAX_LIFECYCLE_MS 2000.0
#endif

typedef enum { EMU_PACE_MODEL = 0, EMU_PACE_NONE = 1 } emu_pace;
/* --speed for --replay: as fast as the order allows, or recorded pacing. */
typedef enum { EMU_REPLAY_MAX = 0, EMU_REPLAY_RECORDED = 1 } emu_replay_speed;
typedef enum { EMU_HOST_NCCL = 0, EMU_HOST_RCCL = 1 } emu_host;
typedef enum { EMU_NET_IB = 0, EMU_NET_SOCKET = 1 } emu_net;
/* How the hang scenario's --hang-rank hangs (docs/ncclemu.md). */
typedef enum {
  EMU_HANG_GPU = 0,      /* its GPU stops in the collective (the default) */
  EMU_HANG_NEVER_CALLED, /* its host never calls the collective */
  EMU_HANG_MISMATCH,     /* it calls it with other arguments; nobody finishes */
  EMU_HANG_NETWORK,      /* its link to its ring successor stops */
  EMU_HANG_PROXY         /* its proxy thread stops; its GPU runs on */
} emu_hang_class;
/* What the mismatch class's --hang-rank calls differently (--mismatch). */
typedef enum {
  EMU_MISMATCH_COUNT = 0, /* a quarter of the others' count (the default) */
  EMU_MISMATCH_DATATYPE,  /* ncclFloat16 where the others use ncclFloat32 */
  EMU_MISMATCH_FUNC       /* AllGather where the others call AllReduce */
} emu_mismatch;

typedef enum {
  EMU_PXN_GUARD = 0, /* foreign pointers readable here become guard aliases */
  EMU_PXN_RAW = 1    /* pass the originator's values unchanged */
} emu_pxn_pointers;

typedef struct emu_options {
  /* what to run */
  const char *plugin;   /* NULL: use NCCL_PROFILER_PLUGIN as is */
  const char *scenario; /* scenario name */
  const char *preload;  /* dlopen RTLD_GLOBAL before loading (STATIC_PLUGIN) */
  const char *net_plugin; /* library searched when no profiler lib opens */
  /* topology (0 = the scenario's default) */
  int nodes;
  int ranks_per_node;
  int ranks_per_process;
  int threads; /* application threads per process */
  int channels;
  bool channels_set; /* --channels given */
  int tp, pp;        /* mixed: tensor- and pipeline-parallel degrees */
  /* amount of work */
  int ops;         /* iterations of the scenario's step */
  double duration; /* seconds; > 0 repeats steps until it elapses */
  double rate;     /* callbacks/s target over all processes; 0 = unpaced */
  uint64_t sizes[EMU_MAX_SIZES];
  int nsizes;
  bool sizes_set; /* --sizes given (mixed then uses it) */
  /* NCCL behaviour */
  bool mask_set;
  int mask;         /* forced activation mask after every init */
  int nccl_version; /* code: major*10000 + minor*100 + patch */
  int abi;          /* 0 = probe; 1..7 = force ncclProfiler_vN */
  emu_host host;
  emu_net net;
  bool pxn; /* route sends through a peer's proxy (PXN) */
  /* determinism */
  uint64_t seed;
  /* the job's NCCL unique id (ncclGetUniqueId draws one per real job): it
   * makes the world communicator's hash, so every commId; default: seed */
  uint64_t unique_id;
  bool unique_id_set;
  /* ground truth and checks */
  const char *truth;
  bool check;
  double max_callback_ms;
  double max_lifecycle_ms; /* init/finalize: may start/join threads, do I/O */
  emu_pxn_pointers pxn_pointers;
  double timeout; /* seconds before the supervisor kills workers */
  /* pacing and numbers */
  emu_pace pace;
  double bw_gbps;     /* network GB/s per rank */
  double nvlink_gbps; /* intra-node bus GB/s */
  double lat_us;      /* per-operation latency */
  double net_lat_us;  /* per network step latency */
  int64_t gpu_clock_offset_ns;
  double gpu_clock_drift_ppm;
  uint64_t gpu_clock_quantum_ns;
  double ring_anomaly_rate;
  int delay_rank; /* -1 = none */
  double delay_us;
  /* worker late_worker's first communicator init waits for every other
   * worker's, then late_ms more (a process its launcher started late);
   * -1 = none */
  int late_worker;
  double late_ms;
  /* a slow link: network transfers from comm rank slow_link_from to
   * slow_link_to take slow_link_factor times the modelled bytes time */
  int slow_link_from, slow_link_to; /* -1 = none */
  double slow_link_factor;
  /* a slow GPU: the kernels of global rank slow_rank take slow_factor
   * times their modelled time; its peers in a communicator wait for its
   * data, so their kernels end when its do (emu_model_gpu_stretch) */
  int slow_rank; /* -1 = none */
  double slow_factor;
  int hang_rank; /* -1 = scenario default */
  emu_hang_class hang_class;
  emu_mismatch mismatch;
  double chaos_level; /* 0..1 probability scale for chaos choices */
  /* NVIDIA NCCL >= 2.31 only (nccl-behaviour §12) */
  bool symmetric;         /* intra-node collectives run symmetric kernels */
  bool blocking_launches; /* eager launches are blocking: plans then run
                             their host callback on the cuda-cb thread */
  /* every profiler thread stops polling after its profiler_stall-th
   * KernelCh start (one that fell behind for good); 0 = never */
  int profiler_stall;
  /* no emulated CUDA driver: the plugin finds no device or GPU UUID */
  bool no_devices;
  /* a training loop's control calls */
  bool step_marks; /* cclscope_step(i) before each iteration, if exported */
  /* replay (emu_replay.c): trace files instead of a scenario */
  bool replay;
  char **replay_files;
  int nreplay_files;
  emu_replay_speed replay_speed;
  bool nccl_version_set; /* given on the command line (replay defaults) */
  bool host_set;
  /* output */
  bool stats;
  bool quiet;
} emu_options;

/* Fills defaults. */
void emu_options_defaults(emu_options *o);
/* Parses argv; handles --help/--list/--normalize itself (exits).
 * Exits with EMU_EXIT_USAGE and a message on errors. */
void emu_options_parse(emu_options *o, int argc, char **argv);
/* Prints --help text. */
void emu_options_help(void);
/* "2.30.7" -> 23007; accepts "2.30" (patch filled from the release table).
 * Returns 0 on error. */
int emu_parse_nccl_version(const char *s);
/* Highest profiler ABI the given NCCL release probes (2.23 -> 1, ... 2.31 ->
 * 7); 0 if unknown. */
int emu_max_abi_for_version(int version_code);
/* Parses a mask: number (dec/hex) or comma list of event names / "all". */
bool emu_parse_mask(const char *s, int *out);

#endif
