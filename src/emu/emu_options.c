/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_options.c — owns the command line: defaults, parsing with
 * getopt_long, --help (every option with its default), --list (one line
 * per scenario) and --normalize (the truth normaliser as a tool).
 */
#include "emu_options.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/emu_truth.h"
#include "nccl/emu_model.h"
#include "nccl_names.h"
#include "profiler/emu_loader.h"
#include "scenarios/emu_scenarios.h"

#define DEFAULT_SIZES "64K,1M,32M"

void emu_options_defaults(emu_options *o) {
  memset(o, 0, sizeof *o);
  o->scenario = "multi-node";
  o->ops = 0;
  o->nccl_version = 23007;
  o->abi = 0;
  o->host = EMU_HOST_NCCL;
  o->net = EMU_NET_IB;
  o->seed = 1;
  o->check = true;
  o->max_callback_ms = 100.0;
  o->max_lifecycle_ms = EMU_DEFAULT_MAX_LIFECYCLE_MS;
  o->pxn_pointers = EMU_PXN_GUARD;
  o->timeout = 300.0;
  o->pace = EMU_PACE_MODEL;
  o->bw_gbps = 25.0;
  o->nvlink_gbps = 230.0;
  o->lat_us = 5.0;
  o->net_lat_us = 2.0;
  o->gpu_clock_quantum_ns = 1000;
  o->ring_anomaly_rate = 0.001;
  o->delay_rank = -1;
  o->late_worker = -1;
  o->slow_link_from = o->slow_link_to = -1;
  o->slow_link_factor = 4.0;
  o->slow_rank = -1;
  o->slow_factor = 2.0;
  o->hang_rank = -1;
  o->channels = 2;
  emu_parse_sizes(DEFAULT_SIZES, o->sizes, &o->nsizes);
}

void emu_options_help(void) {
  printf(
      "usage: ncclemu [--plugin PATH|NAME] [--scenario NAME] [options]\n"
      "       ncclemu --replay [options] TRACE...\n"
      "       ncclemu --list | --help | --normalize TRUTH...\n"
      "\n"
      "A host-only stand-in for NCCL that loads a profiler plugin and calls "
      "it\n"
      "exactly as NCCL does (see docs/ncclemu.md).\n"
      "\n"
      "What to run:\n"
      "  --plugin P            sets NCCL_PROFILER_PLUGIN=P in every worker (a\n"
      "                        path, a soname, a short name -> "
      "libnccl-profiler-\n"
      "                        P.so, 'none', or STATIC_PLUGIN); default: the\n"
      "                        environment's NCCL_PROFILER_PLUGIN as is\n"
      "  --scenario NAME       scenario to run (--list); default multi-node\n"
      "  --list                print every scenario with one line and exit\n"
      "  --preload LIB         dlopen LIB RTLD_GLOBAL first (an application\n"
      "                        linking the plugin: use with STATIC_PLUGIN)\n"
      "  --net-plugin LIB      net plugin library searched for profiler\n"
      "                        symbols when no profiler library opens\n"
      "\n"
      "Replay (docs/ncclemu.md, Replay):\n"
      "  --replay TRACE...     drive the plugin with the calls recorded in\n"
      "                        cclscope traces (files or folders; recorded\n"
      "                        with CCLSCOPE_MASK=all) or minimal_profiler\n"
      "                        ones: one process per file,\n"
      "                        one thread per recorded thread, every call in\n"
      "                        the recorded order; the recorded NCCL version,\n"
      "                        host, ABI and mask unless --nccl-version,\n"
      "                        --host, --abi, --mask say otherwise; --truth,\n"
      "                        --check, --plugin, --timeout apply\n"
      "  --speed recorded|max  recorded: keep the recorded time between\n"
      "                        calls; max: as fast as the order allows;\n"
      "                        default max\n"
      "\n"
      "Topology (default: the scenario's):\n"
      "  --nodes N             nodes\n"
      "  --ranks-per-node G    GPUs per node\n"
      "  --ranks-per-process R ranks emulated by one process; N*G/R worker\n"
      "                        processes are forked (R must divide G)\n"
      "                        Limits: 1024 ranks (N*G), 1024 processes,\n"
      "                        16 ranks per process, 1040 communicators.\n"
      "                        1024 ranks on a few cores: 128 x 8 with\n"
      "                        R 8 and --max-lifecycle-ms 60000\n"
      "                        (docs/ncclemu.md, \"Scale\")\n"
      "  --threads T           application threads per process (ranks are\n"
      "                        spread over them); default 1\n"
      "  --channels C          maximum channels per collective; default 2\n"
      "  --tp N, --pp N        mixed: tensor / pipeline parallel degree;\n"
      "                        default 2 and 2\n"
      "\n"
      "Amount of work:\n"
      "  --ops N               iterations of the scenario's step; default: "
      "the\n"
      "                        scenario's (see --list)\n"
      "  --duration S          repeat steps for S seconds instead (hang: how\n"
      "                        long the hang lasts; default 2)\n"
      "  --rate N              pace to at most N plugin callbacks per second\n"
      "                        over all processes; default 0 = unpaced\n"
      "  --sizes LIST          message sizes in bytes, e.g. 4K,1M,32M; "
      "default\n"
      "                        " DEFAULT_SIZES
      " (mixed: its own sizes; given,\n"
      "                        round-robin over its roles and iterations)\n"
      "\n"
      "NCCL behaviour:\n"
      "  --nccl-version X.Y[.Z] pretend to be this NCCL (2.23 .. 2.31): probe\n"
      "                        order, ncclGetVersion(); default 2.30.7\n"
      "  --abi N               call ncclProfiler_vN only (error if absent)\n"
      "  --host nccl|rccl      rccl: RCCL's v6 (proxyOp extras, ProxyDiag\n"
      "                        updates, 24-byte state args), probes v6..v1\n"
      "                        (2.31: its v7 first, NVIDIA's 2.31 core,\n"
      "                        ProxyDiag on bit 16 / state 32), no unload\n"
      "                        on a failed init before 2.31, with\n"
      "                        RCCL_ENABLE_PROXY_TRACE and no plugin found\n"
      "                        librccl-profiler-proxytrace.so from\n"
      "                        ncclemu's folder, CCLSCOPE_HOST=rccl;\n"
      "                        default nccl\n"
      "  --mask M              force the activation mask after every init, as\n"
      "                        if the plugin wrote M (number or names such as\n"
      "                        coll,proxystep,kernelch or 'all'); default: "
      "the\n"
      "                        plugin's own choice\n"
      "  --net ib|socket       network transport; default ib\n"
      "  --pxn                 route sends through another process's proxy\n"
      "  --chaos P             probability scale for chaos choices (0..1);\n"
      "                        default 0 (chaos scenario: 0.3)\n"
      "\n"
      "Determinism, truth and checks:\n"
      "  --seed S              seed for every choice; default 1\n"
      "  --unique-id N         the job's NCCL unique id, which every commId\n"
      "                        derives from (NCCL draws one per job);\n"
      "                        default: from --seed\n"
      "  --truth FILE          ground truth as JSON Lines (FILE.<worker> when\n"
      "                        there are several processes)\n"
      "  --check / --no-check  strict checks (unwritten *eHandle, init error,\n"
      "                        slow callback, guard pages for PXN pointers);\n"
      "                        default on\n"
      "  --max-callback-ms X   slow-callback limit for --check; default 100\n"
      "  --max-lifecycle-ms X  the same for init/finalize (they may start or\n"
      "                        join threads and write files); default 2000\n"
      "                        (10000 when ncclemu is a sanitizer build)\n"
      "  --pxn-pointers guard|raw  foreign PXN pointers readable here become\n"
      "                        faulting aliases (guard) or stay as is (raw);\n"
      "                        default guard (only with --check)\n"
      "  --timeout S           kill workers after S seconds (with --replay,\n"
      "                        from the start of loading); default 300\n"
      "  --normalize TRUTH...  print truth files without run-specific values\n"
      "                        (for diffing two runs with the same seed)\n"
      "\n"
      "Numbers and pacing:\n"
      "  --pace model|none     model: durations from the bandwidth model;\n"
      "                        none: as fast as possible; default model\n"
      "  --bw-gbps X           network GB/s per rank; default 25\n"
      "  --nvlink-gbps X       intra-node bus GB/s; default 230\n"
      "  --lat-us X            per-operation latency; default 5\n"
      "  --net-lat-us X        per network step latency; default 2\n"
      "  --gpu-clock-offset-ns N   fake %%globaltimer offset; default 0\n"
      "  --gpu-clock-drift-ppm X   its drift; default 0\n"
      "  --gpu-clock-quantum-ns N  its granularity; default 1000\n"
      "  --ring-anomaly-rate P KernelCh stamps from an overwritten ring slot;\n"
      "                        default 0.001\n"
      "  --delay-rank R --delay-us X  rank R arrives X us late at every\n"
      "                        operation (straggler); default none\n"
      "  --start-late W:MS     worker W starts MS ms after every other worker\n"
      "                        (its first communicator init waits for\n"
      "                        theirs); default none\n"
      "  --slow-link A:B       network transfers from rank A to rank B (of\n"
      "                        every communicator) move their bytes\n"
      "                        --slow-link-factor times slower (a bad\n"
      "                        link); default none\n"
      "  --slow-link-factor X  default 4\n"
      "  --slow-rank R         rank R's GPU is slow: its own GPU work in\n"
      "                        each kernel takes --slow-factor times as long\n"
      "                        (it arrives on time; its peers' kernels\n"
      "                        wait for its data and end with it; on 2.31\n"
      "                        its compute phase is long, theirs\n"
      "                        final_sync); default none\n"
      "  --slow-factor X       default 2\n"
      "  --hang-rank R         hang scenario: the rank that stops; default "
      "last\n"
      "  --hang-class C        hang scenario: how it stops in its 2nd "
      "AllReduce:\n"
      "                        gpu (its GPU stops; default), never-called\n"
      "                        (its host never calls it), mismatch (it\n"
      "                        calls it with other arguments: nobody\n"
      "                        finishes), network (its link to its ring\n"
      "                        successor stops) or proxy (its proxy thread\n"
      "                        stops, its GPU runs on)\n"
      "  --mismatch K          mismatch class: what differs: count (a\n"
      "                        quarter; default), datatype (ncclFloat16) or\n"
      "                        func (AllGather instead of AllReduce)\n"
      "\n"
      "NCCL 2.31 (--nccl-version 2.31; the first two NVIDIA only):\n"
      "  --symmetric           AllReduce/AllGather/ReduceScatter inside one\n"
      "                        node run symmetric kernels (Coll isSymColl=1,\n"
      "                        kernelVariant, proto \"\"); default off\n"
      "  --blocking-launches   eager launches are blocking, so plans run\n"
      "                        their host callback on the cuda-cb thread;\n"
      "                        default off\n"
      "  --profiler-stall N    every profiler thread stops polling after its\n"
      "                        N-th KernelCh start (one that fell behind for\n"
      "                        good): its communicators' destroys purge the\n"
      "                        ops left, started ones included; default off\n"
      "\n"
      "Application:\n"
      "  --no-devices          load no emulated CUDA driver (by default each\n"
      "                        worker loads libncclemu-cuda.so as\n"
      "                        libcuda.so.1, and every communicator init runs\n"
      "                        with the rank's local index as its device)\n"
      "  --step-marks          before every iteration, application thread 0\n"
      "                        of each process calls the plugin's\n"
      "                        cclscope_step(iteration), and after the last\n"
      "                        cclscope_mark(\"ncclemu-done\"), when the\n"
      "                        plugin exports them (a training loop)\n"
      "\n"
      "Output:\n"
      "  --stats               print callbacks, wall and CPU time per "
      "callback\n"
      "  --quiet               no banner or summary; the logger prints no "
      "WARN\n"
      "  --help                this text\n"
      "\n"
      "Exit status: 0 ok, 1 a check failed / a worker crashed / the plugin\n"
      "did not load, 2 usage error.\n");
}

static void list_scenarios(void) {
  for (int i = 0; i < emu_scenario_count(); i++) {
    const emu_scenario *s = emu_scenario_at(i);
    printf("%-12s %s\n", s->name, s->summary);
  }
}

int emu_parse_nccl_version(const char *s) {
  int major = 0, minor = 0, patch = -1;
  int n = sscanf(s, "%d.%d.%d", &major, &minor, &patch);
  if (n < 2 || major != 2 || minor < 0 || minor > 99)
    return 0;
  if (n == 2) {
    static const int default_patch[] = {/*23*/ 4, /*24*/ 3, /*25*/ 1,
                                        /*26*/ 6, /*27*/ 7, /*28*/ 9,
                                        /*29*/ 7, /*30*/ 7, /*31*/ 2};
    patch = minor >= 23 && minor <= 31 ? default_patch[minor - 23] : 0;
  }
  if (patch < 0 || patch > 99)
    return 0;
  return major * 10000 + minor * 100 + patch;
}

bool emu_parse_mask(const char *s, int *out) {
  if (isdigit((unsigned char)s[0])) {
    char *end = NULL;
    long v = strtol(s, &end, 0);
    if (*end != '\0' || v < 0 || v > 0x7FFFFFFF)
      return false;
    *out = (int)v;
    return true;
  }
  char buf[512];
  snprintf(buf, sizeof buf, "%s", s);
  int mask = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    if (strcasecmp(tok, "all") == 0) {
      mask |= 0xFFFF;
      continue;
    }
    int type = nccl_event_from_mask_name(tok);
    if (type >= 0)
      mask |= 1 << type;
    else
      return false;
  }
  *out = mask;
  return true;
}

static double parse_double(const char *opt, const char *v, double lo,
                           double hi) {
  char *end = NULL;
  double d = strtod(v, &end);
  if (end == v || *end != '\0' || d < lo || d > hi)
    emu_die("%s: '%s' is not a number in [%g, %g] (see --help)", opt, v, lo,
            hi);
  return d;
}

static int parse_int(const char *opt, const char *v, int lo, int hi) {
  return (int)parse_double(opt, v, lo, hi);
}

enum {
  OPT_PLUGIN = 256,
  OPT_SCENARIO,
  OPT_LIST,
  OPT_HELP,
  OPT_NODES,
  OPT_RPN,
  OPT_RPP,
  OPT_THREADS,
  OPT_CHANNELS,
  OPT_TP,
  OPT_PP,
  OPT_OPS,
  OPT_DURATION,
  OPT_RATE,
  OPT_SIZES,
  OPT_MASK,
  OPT_VERSION,
  OPT_ABI,
  OPT_HOST,
  OPT_NET,
  OPT_PXN,
  OPT_SEED,
  OPT_TRUTH,
  OPT_CHECK,
  OPT_NO_CHECK,
  OPT_MAX_CB,
  OPT_MAX_LIFE,
  OPT_PXN_POINTERS,
  OPT_TIMEOUT,
  OPT_PACE,
  OPT_BW,
  OPT_NVLINK,
  OPT_LAT,
  OPT_NET_LAT,
  OPT_GPU_OFFSET,
  OPT_GPU_DRIFT,
  OPT_GPU_QUANTUM,
  OPT_RING_ANOMALY,
  OPT_DELAY_RANK,
  OPT_DELAY_US,
  OPT_UNIQUE_ID,
  OPT_START_LATE,
  OPT_SLOW_LINK,
  OPT_SLOW_LINK_FACTOR,
  OPT_SLOW_RANK,
  OPT_SLOW_FACTOR,
  OPT_HANG_RANK,
  OPT_HANG_CLASS,
  OPT_MISMATCH,
  OPT_CHAOS,
  OPT_PRELOAD,
  OPT_NET_PLUGIN,
  OPT_STATS,
  OPT_SYMMETRIC,
  OPT_NO_DEVICES,
  OPT_BLOCKING_LAUNCHES,
  OPT_PROFILER_STALL,
  OPT_STEP_MARKS,
  OPT_QUIET,
  OPT_NORMALIZE,
  OPT_REPLAY,
  OPT_SPEED
};

void emu_options_parse(emu_options *o, int argc, char **argv) {
  static const struct option longopts[] = {
      {"plugin", required_argument, NULL, OPT_PLUGIN},
      {"scenario", required_argument, NULL, OPT_SCENARIO},
      {"list", no_argument, NULL, OPT_LIST},
      {"help", no_argument, NULL, OPT_HELP},
      {"nodes", required_argument, NULL, OPT_NODES},
      {"ranks-per-node", required_argument, NULL, OPT_RPN},
      {"ranks-per-process", required_argument, NULL, OPT_RPP},
      {"threads", required_argument, NULL, OPT_THREADS},
      {"channels", required_argument, NULL, OPT_CHANNELS},
      {"tp", required_argument, NULL, OPT_TP},
      {"pp", required_argument, NULL, OPT_PP},
      {"ops", required_argument, NULL, OPT_OPS},
      {"duration", required_argument, NULL, OPT_DURATION},
      {"rate", required_argument, NULL, OPT_RATE},
      {"sizes", required_argument, NULL, OPT_SIZES},
      {"mask", required_argument, NULL, OPT_MASK},
      {"nccl-version", required_argument, NULL, OPT_VERSION},
      {"abi", required_argument, NULL, OPT_ABI},
      {"host", required_argument, NULL, OPT_HOST},
      {"net", required_argument, NULL, OPT_NET},
      {"pxn", no_argument, NULL, OPT_PXN},
      {"seed", required_argument, NULL, OPT_SEED},
      {"truth", required_argument, NULL, OPT_TRUTH},
      {"check", no_argument, NULL, OPT_CHECK},
      {"no-check", no_argument, NULL, OPT_NO_CHECK},
      {"max-callback-ms", required_argument, NULL, OPT_MAX_CB},
      {"max-lifecycle-ms", required_argument, NULL, OPT_MAX_LIFE},
      {"pxn-pointers", required_argument, NULL, OPT_PXN_POINTERS},
      {"timeout", required_argument, NULL, OPT_TIMEOUT},
      {"pace", required_argument, NULL, OPT_PACE},
      {"bw-gbps", required_argument, NULL, OPT_BW},
      {"nvlink-gbps", required_argument, NULL, OPT_NVLINK},
      {"lat-us", required_argument, NULL, OPT_LAT},
      {"net-lat-us", required_argument, NULL, OPT_NET_LAT},
      {"gpu-clock-offset-ns", required_argument, NULL, OPT_GPU_OFFSET},
      {"gpu-clock-drift-ppm", required_argument, NULL, OPT_GPU_DRIFT},
      {"gpu-clock-quantum-ns", required_argument, NULL, OPT_GPU_QUANTUM},
      {"ring-anomaly-rate", required_argument, NULL, OPT_RING_ANOMALY},
      {"delay-rank", required_argument, NULL, OPT_DELAY_RANK},
      {"delay-us", required_argument, NULL, OPT_DELAY_US},
      {"unique-id", required_argument, NULL, OPT_UNIQUE_ID},
      {"start-late", required_argument, NULL, OPT_START_LATE},
      {"slow-link", required_argument, NULL, OPT_SLOW_LINK},
      {"slow-link-factor", required_argument, NULL, OPT_SLOW_LINK_FACTOR},
      {"slow-rank", required_argument, NULL, OPT_SLOW_RANK},
      {"slow-factor", required_argument, NULL, OPT_SLOW_FACTOR},
      {"hang-rank", required_argument, NULL, OPT_HANG_RANK},
      {"hang-class", required_argument, NULL, OPT_HANG_CLASS},
      {"mismatch", required_argument, NULL, OPT_MISMATCH},
      {"chaos", required_argument, NULL, OPT_CHAOS},
      {"preload", required_argument, NULL, OPT_PRELOAD},
      {"net-plugin", required_argument, NULL, OPT_NET_PLUGIN},
      {"stats", no_argument, NULL, OPT_STATS},
      {"symmetric", no_argument, NULL, OPT_SYMMETRIC},
      {"no-devices", no_argument, NULL, OPT_NO_DEVICES},
      {"blocking-launches", no_argument, NULL, OPT_BLOCKING_LAUNCHES},
      {"profiler-stall", required_argument, NULL, OPT_PROFILER_STALL},
      {"step-marks", no_argument, NULL, OPT_STEP_MARKS},
      {"quiet", no_argument, NULL, OPT_QUIET},
      {"normalize", no_argument, NULL, OPT_NORMALIZE},
      {"replay", no_argument, NULL, OPT_REPLAY},
      {"speed", required_argument, NULL, OPT_SPEED},
      {NULL, 0, NULL, 0}};
  bool normalize = false;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    const char *v = optarg;
    const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    switch (c) {
    case OPT_PLUGIN:
      o->plugin = v;
      break;
    case OPT_SCENARIO:
      o->scenario = v;
      break;
    case OPT_LIST:
      list_scenarios();
      exit(EMU_EXIT_OK);
    case OPT_HELP:
      emu_options_help();
      exit(EMU_EXIT_OK);
    case OPT_NODES:
      o->nodes = parse_int("--nodes", v, 1, EMU_MAX_RANKS);
      break;
    case OPT_RPN:
      o->ranks_per_node = parse_int("--ranks-per-node", v, 1, EMU_MAX_RANKS);
      break;
    case OPT_RPP:
      o->ranks_per_process =
          parse_int("--ranks-per-process", v, 1, EMU_MAX_LOCAL_RANKS);
      break;
    case OPT_THREADS:
      o->threads = parse_int("--threads", v, 1, EMU_MAX_APP_THREADS);
      break;
    case OPT_CHANNELS:
      o->channels = parse_int("--channels", v, 1, EMU_MAX_CHANNELS);
      o->channels_set = true;
      break;
    case OPT_TP:
      o->tp = parse_int("--tp", v, 1, EMU_MAX_RANKS);
      break;
    case OPT_PP:
      o->pp = parse_int("--pp", v, 1, EMU_MAX_RANKS);
      break;
    case OPT_OPS:
      o->ops = parse_int("--ops", v, 1, 1000000000);
      break;
    case OPT_DURATION:
      o->duration = parse_double("--duration", v, 0, 1e6);
      break;
    case OPT_RATE:
      o->rate = parse_double("--rate", v, 0, 1e12);
      break;
    case OPT_SIZES:
      if (!emu_parse_sizes(v, o->sizes, &o->nsizes))
        emu_die("--sizes: cannot parse '%s' (e.g. 4K,1M,32M)", v);
      o->sizes_set = true;
      break;
    case OPT_MASK:
      if (!emu_parse_mask(v, &o->mask))
        emu_die("--mask: cannot parse '%s' (a number or names such as "
                "coll,proxystep,kernelch,all)",
                v);
      o->mask_set = true;
      break;
    case OPT_VERSION:
      o->nccl_version = emu_parse_nccl_version(v);
      if (o->nccl_version == 0 || emu_max_abi_for_version(o->nccl_version) == 0)
        emu_die("--nccl-version: '%s' is not an NCCL release with profiler "
                "plugins (2.23 .. 2.31)",
                v);
      o->nccl_version_set = true;
      break;
    case OPT_ABI:
      o->abi = parse_int("--abi", v, 1, 7);
      break;
    case OPT_HOST:
      if (strcmp(v, "nccl") == 0)
        o->host = EMU_HOST_NCCL;
      else if (strcmp(v, "rccl") == 0)
        o->host = EMU_HOST_RCCL;
      else
        emu_die("--host: expected nccl or rccl, got '%s'", v);
      o->host_set = true;
      break;
    case OPT_NET:
      if (strcmp(v, "ib") == 0)
        o->net = EMU_NET_IB;
      else if (strcmp(v, "socket") == 0)
        o->net = EMU_NET_SOCKET;
      else
        emu_die("--net: expected ib or socket, got '%s'", v);
      break;
    case OPT_PXN:
      o->pxn = true;
      break;
    case OPT_SEED:
      o->seed = (uint64_t)parse_double("--seed", v, 0, 1.8e19);
      break;
    case OPT_TRUTH:
      o->truth = v;
      break;
    case OPT_CHECK:
      o->check = true;
      break;
    case OPT_NO_CHECK:
      o->check = false;
      break;
    case OPT_MAX_CB:
      o->max_callback_ms = parse_double("--max-callback-ms", v, 0, 1e9);
      break;
    case OPT_MAX_LIFE:
      o->max_lifecycle_ms = parse_double("--max-lifecycle-ms", v, 0, 1e9);
      break;
    case OPT_PXN_POINTERS:
      if (strcmp(v, "guard") == 0)
        o->pxn_pointers = EMU_PXN_GUARD;
      else if (strcmp(v, "raw") == 0)
        o->pxn_pointers = EMU_PXN_RAW;
      else
        emu_die("--pxn-pointers: expected guard or raw, got '%s'", v);
      break;
    case OPT_TIMEOUT:
      o->timeout = parse_double("--timeout", v, 0.1, 1e7);
      break;
    case OPT_PACE:
      if (strcmp(v, "model") == 0)
        o->pace = EMU_PACE_MODEL;
      else if (strcmp(v, "none") == 0)
        o->pace = EMU_PACE_NONE;
      else
        emu_die("--pace: expected model or none, got '%s'", v);
      break;
    case OPT_BW:
      o->bw_gbps = parse_double("--bw-gbps", v, 0.001, 1e6);
      break;
    case OPT_NVLINK:
      o->nvlink_gbps = parse_double("--nvlink-gbps", v, 0.001, 1e6);
      break;
    case OPT_LAT:
      o->lat_us = parse_double("--lat-us", v, 0, 1e6);
      break;
    case OPT_NET_LAT:
      o->net_lat_us = parse_double("--net-lat-us", v, 0, 1e6);
      break;
    case OPT_GPU_OFFSET:
      o->gpu_clock_offset_ns =
          (int64_t)parse_double("--gpu-clock-offset-ns", v, -1e18, 1e18);
      break;
    case OPT_GPU_DRIFT:
      o->gpu_clock_drift_ppm =
          parse_double("--gpu-clock-drift-ppm", v, -1e6, 1e6);
      break;
    case OPT_GPU_QUANTUM:
      o->gpu_clock_quantum_ns =
          (uint64_t)parse_double("--gpu-clock-quantum-ns", v, 1, 1e9);
      break;
    case OPT_RING_ANOMALY:
      o->ring_anomaly_rate = parse_double("--ring-anomaly-rate", v, 0, 1);
      break;
    case OPT_DELAY_RANK:
      o->delay_rank = parse_int("--delay-rank", v, 0, EMU_MAX_RANKS - 1);
      break;
    case OPT_DELAY_US:
      o->delay_us = parse_double("--delay-us", v, 0, 1e9);
      break;
    case OPT_UNIQUE_ID:
      o->unique_id = (uint64_t)parse_double("--unique-id", v, 0, 1.8e19);
      o->unique_id_set = true;
      break;
    case OPT_START_LATE: {
      int worker, ms, used = 0;
      if (sscanf(v, "%d:%d%n", &worker, &ms, &used) != 2 || v[used] != '\0' ||
          worker < 0 || worker >= EMU_MAX_RANKS || ms < 0 || ms > 600000)
        emu_die("--start-late %s: expected WORKER:MILLISECONDS", v);
      o->late_worker = worker;
      o->late_ms = ms;
      break;
    }
    case OPT_SLOW_LINK: {
      int from, to, used = 0;
      if (sscanf(v, "%d:%d%n", &from, &to, &used) != 2 || v[used] != '\0' ||
          from < 0 || to < 0 || from == to || from >= EMU_MAX_RANKS ||
          to >= EMU_MAX_RANKS)
        emu_die("--slow-link: expected SRC:DST, two different ranks, got "
                "'%s'",
                v);
      o->slow_link_from = from;
      o->slow_link_to = to;
      break;
    }
    case OPT_SLOW_LINK_FACTOR:
      o->slow_link_factor = parse_double("--slow-link-factor", v, 1, 1e6);
      break;
    case OPT_SLOW_RANK:
      o->slow_rank = parse_int("--slow-rank", v, 0, EMU_MAX_RANKS - 1);
      break;
    case OPT_SLOW_FACTOR:
      o->slow_factor = parse_double("--slow-factor", v, 1, 1e3);
      break;
    case OPT_HANG_RANK:
      o->hang_rank = parse_int("--hang-rank", v, 0, EMU_MAX_RANKS - 1);
      break;
    case OPT_HANG_CLASS:
      if (strcmp(v, "gpu") == 0)
        o->hang_class = EMU_HANG_GPU;
      else if (strcmp(v, "never-called") == 0)
        o->hang_class = EMU_HANG_NEVER_CALLED;
      else if (strcmp(v, "mismatch") == 0)
        o->hang_class = EMU_HANG_MISMATCH;
      else if (strcmp(v, "network") == 0)
        o->hang_class = EMU_HANG_NETWORK;
      else if (strcmp(v, "proxy") == 0)
        o->hang_class = EMU_HANG_PROXY;
      else
        emu_die("--hang-class: expected gpu, never-called, mismatch, network "
                "or proxy, got '%s'",
                v);
      break;
    case OPT_MISMATCH:
      if (strcmp(v, "count") == 0)
        o->mismatch = EMU_MISMATCH_COUNT;
      else if (strcmp(v, "datatype") == 0)
        o->mismatch = EMU_MISMATCH_DATATYPE;
      else if (strcmp(v, "func") == 0)
        o->mismatch = EMU_MISMATCH_FUNC;
      else
        emu_die("--mismatch: expected count, datatype or func, got '%s'", v);
      break;
    case OPT_CHAOS:
      o->chaos_level = parse_double("--chaos", v, 0, 1);
      break;
    case OPT_PRELOAD:
      o->preload = v;
      break;
    case OPT_NET_PLUGIN:
      o->net_plugin = v;
      break;
    case OPT_STATS:
      o->stats = true;
      break;
    case OPT_SYMMETRIC:
      o->symmetric = true;
      break;
    case OPT_NO_DEVICES:
      o->no_devices = true;
      break;
    case OPT_BLOCKING_LAUNCHES:
      o->blocking_launches = true;
      break;
    case OPT_PROFILER_STALL:
      o->profiler_stall = parse_int("--profiler-stall", v, 1, 1000000000);
      break;
    case OPT_STEP_MARKS:
      o->step_marks = true;
      break;
    case OPT_QUIET:
      o->quiet = true;
      break;
    case OPT_NORMALIZE:
      normalize = true;
      break;
    case OPT_REPLAY:
      o->replay = true;
      break;
    case OPT_SPEED:
      if (strcmp(v, "max") == 0)
        o->replay_speed = EMU_REPLAY_MAX;
      else if (strcmp(v, "recorded") == 0)
        o->replay_speed = EMU_REPLAY_RECORDED;
      else
        emu_die("--speed: expected recorded or max, got '%s'", v);
      break;
    default:
      emu_die("unknown or incomplete option '%s' (see --help)", name);
    }
  }
  if (normalize) {
    if (optind >= argc)
      emu_die("--normalize needs truth files");
    exit(emu_truth_normalize(argc - optind, argv + optind, stdout));
  }
  if (o->replay) {
    if (optind >= argc)
      emu_die("--replay needs trace files or folders (see --help)");
    o->replay_files = argv + optind;
    o->nreplay_files = argc - optind;
    return;
  }
  if (optind < argc)
    emu_die("unexpected argument '%s' (see --help)", argv[optind]);
  bool nccl_231 = o->host == EMU_HOST_NCCL && o->nccl_version >= 23100;
  if ((o->symmetric || o->blocking_launches) && !nccl_231)
    emu_die("%s needs --nccl-version 2.31 or later (NVIDIA)",
            o->symmetric ? "--symmetric" : "--blocking-launches");
  if (o->profiler_stall > 0 && o->nccl_version < 23100)
    emu_die("--profiler-stall needs --nccl-version 2.31 or later");
}
