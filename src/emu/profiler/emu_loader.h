/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/profiler/emu_loader.h — the profiler plugin as NCCL holds it: which
 * library was opened, which ncclProfiler_vN symbol won the probe, the
 * process-wide refcount (one per communicator), sticky failure and dlclose
 * after the last finalize (nccl-behaviour §2). Implemented by emu_loader.c.
 */
#ifndef NCCLEMU_LOADER_H
#define NCCLEMU_LOADER_H

#include "emu_options.h"

/* RCCL's proxy-trace library and dump function (§12): with
 * RCCL_ENABLE_PROXY_TRACE set and no profiler library opened, RCCL opens
 * EMU_PROXY_TRACE_LIB from the folder of its own library (here: ncclemu's)
 * as the plugin; in whichever library it loaded it looks up
 * EMU_PROXY_TRACE_DUMP, with or without the variable. */
#define EMU_PROXY_TRACE_LIB "librccl-profiler-proxytrace.so"
#define EMU_PROXY_TRACE_DUMP "ncclProfilerProxyTraceDump"
typedef struct emu_proxy_trace {
  bool wanted;     /* host rccl and RCCL_ENABLE_PROXY_TRACE set */
  bool tried;      /* ... and no profiler library opened: RCCL tried it */
  bool loaded;     /* ... and it opened: it is the plugin's library */
  void *dump;      /* ncclProfilerProxyTraceDump in the plugin's library */
  char path[512];  /* where RCCL looks for it (the core's folder) */
  char error[256]; /* why it did not open ("" otherwise) */
} emu_proxy_trace;

/* The loaded plugin: one per process, like NCCL's `ncclProfiler`. */
typedef struct emu_plugin {
  int abi;          /* 1..7: which ncclProfiler_vN is called */
  const char *name; /* plugin's own name field */
  void *symbol;     /* ncclProfiler_vN_t* inside the library */
  /* stopEvent/finalize have one shape in all versions (taken at load). */
  ncclResult_t (*stop)(void *eHandle);
  ncclResult_t (*finalize)(void *context);
  void *lib;      /* dlopen handle */
  char path[512]; /* what was opened ("main program" for STATIC) */
  char symbol_name[32];
  bool usertag_valid;   /* v7: deliver userTag (2.31 or later) */
  bool from_net_plugin; /* found in the net plugin library (fallback) */
  bool host_rccl;       /* --host rccl: no unload on a failed init */
  bool rccl_v6;         /* RCCL's v6 layout (profiler_rccl_v6.h) */
  /* RCCL 2.31 (§12): v7 probed first, in its own layout (rccl_v7,
   * profiler_rccl_v7.h); ProxyDiag on 1 << 16 and state 32 */
  bool rccl_231;
  bool rccl_v7;
  bool rccl_layout; /* rccl_v6 || rccl_v7: RCCL's descriptors and args */
  emu_proxy_trace proxy_trace;
} emu_plugin;

typedef enum {
  EMU_LOAD_READY = 0,
  EMU_LOAD_SUCCESS = 1,
  EMU_LOAD_FAILED = 2 /* sticky: never retried in this process */
} emu_load_status;

/* Result of one name resolution attempt list (for truth and tests). */
typedef struct emu_resolution {
  int ntried;
  char tried[4][512]; /* dlopen arguments in order ("" = dlopen(NULL)) */
} emu_resolution;

/* Computes the dlopen candidates NCCL would try for NCCL_PROFILER_PLUGIN
 * `name` (NULL/empty = unset) under `host`. Pure: used by tests. */
void emu_resolve_names(const char *name, emu_host host, emu_resolution *out);
/* True if `name` is a case-insensitive prefix of "STATIC_PLUGIN" (NCCL's
 * strncasecmp quirk, so "s" and "stat" also match). */
bool emu_is_static_plugin_name(const char *name);
/* The probe order for a pretended NCCL version: fills versions[] with
 * e.g. {6,5,4,3,2,1} and returns the count (RCCL: at most v6); --abi N
 * gives {N}. */
int emu_probe_order(int nccl_version, emu_host host, int forced_abi,
                    int versions[7]);

/* Process-wide loader (NCCL's ncclProfilerPluginLoad/Unload). Both take
 * the loader mutex. Acquire returns the plugin or NULL (not loaded);
 * *loaded_now tells whether this call opened the library. Release sets
 * *closed when the refcount reached 0 and the library was dlclose'd. */
emu_plugin *emu_loader_acquire(bool *loaded_now);
void emu_loader_release(bool *closed);
/* Current plugin pointer as the emission points see it (acquire load). */
emu_plugin *emu_loader_current(void);
emu_load_status emu_loader_status(void);
int emu_loader_refcount(void);
/* Set once per worker before the first acquire. */
void emu_loader_configure(const emu_options *o);
/* Last load error text ("" if none). */
const char *emu_loader_error(void);

/* Exported from the executable so plugins can ask which NCCL runs them
 * (dlsym(RTLD_DEFAULT, "ncclGetVersion")). */
__attribute__((visibility("default"))) ncclResult_t
ncclGetVersion(int *version);
/* NCCL's logger handed to init (v4+): prints INFO/WARN when not quiet. */
void emu_nccl_debug_log(ncclDebugLogLevel level, unsigned long flags,
                        const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
