/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/profiler/emu_loader.c — owns plugin loading exactly as NCCL's
 * ncclProfilerPluginLoad/Unload do it (nccl-behaviour §2):
 *   - sticky failure: once a load failed, never retried in this process;
 *   - NCCL_PROFILER_PLUGIN: unset -> "libnccl-profiler.so"; "none" -> fail;
 *     a name is dlopen'ed as given, then (no '/', not lib*.so) as
 *     "libnccl-profiler-<name>.so"; any case-insensitive prefix of
 *     "STATIC_PLUGIN" means dlopen(NULL) (search the program);
 *     RCCL uses the same "libnccl-profiler" prefix (§12);
 *   - fallback to the net plugin library when nothing opened;
 *   - symbol probe from the pretended release's newest ABI down to v1
 *     (2.23: v1; 2.24/2.25: v2; 2.26: v3; 2.27: v4; 2.28: v5; 2.29/2.30: v6;
 *     2.31: v7 — from NCCL's git history) or only --abi N; RCCL before
 *     2.31 probes v6 down to v1 whatever release is pretended (§12);
 *   - RCCL with RCCL_ENABLE_PROXY_TRACE and no profiler library opened:
 *     opens librccl-profiler-proxytrace.so from the core's own folder
 *     (ncclemu's) as the plugin, before the net plugin fallback; RCCL looks
 *     up ncclProfilerProxyTraceDump in whichever library it loaded, with or
 *     without the variable (absent: harmless);
 *   - refcount +1 per communicator, dlclose when it drops to 0.
 * Also exports ncclGetVersion() and the logger handed to init.
 */
#include "profiler/emu_loader.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t loader_mutex = PTHREAD_MUTEX_INITIALIZER;
static emu_plugin plugin_storage;
static emu_plugin *current_plugin; /* NCCL's ncclProfiler: NULL = none */
static emu_load_status load_status = EMU_LOAD_READY;
static int refcount;
static char load_error[1024];
static const emu_options *loader_options;
static void *net_plugin_lib;
static int pretended_version = 23007;

void emu_loader_configure(const emu_options *o) {
  loader_options = o;
  pretended_version = o->nccl_version;
  if (o->preload != NULL) {
    /* An application that links the plugin into itself: its symbols are in
     * the global scope, where dlopen(NULL) finds them (STATIC_PLUGIN). */
    if (dlopen(o->preload, RTLD_NOW | RTLD_GLOBAL) == NULL)
      emu_die("cannot preload '%s': %s", o->preload, dlerror());
  }
  if (o->net_plugin != NULL) {
    net_plugin_lib = dlopen(o->net_plugin, RTLD_NOW | RTLD_LOCAL);
    if (net_plugin_lib == NULL)
      emu_die("cannot load net plugin '%s': %s", o->net_plugin, dlerror());
  }
}

bool emu_is_static_plugin_name(const char *name) {
  size_t n = strlen(name);
  return n > 0 && strncasecmp(name, "STATIC_PLUGIN", n) == 0;
}

void emu_resolve_names(const char *name, emu_host host, emu_resolution *out) {
  (void)host; /* RCCL resolves short names exactly as NCCL does (§12) */
  const char *prefix = "libnccl-profiler";
  out->ntried = 0;
  if (name == NULL || name[0] == '\0') {
    snprintf(out->tried[out->ntried++], sizeof out->tried[0], "%s.so", prefix);
    return;
  }
  if (emu_is_static_plugin_name(name))
    out->tried[out->ntried++][0] = '\0'; /* dlopen(NULL) */
  else
    snprintf(out->tried[out->ntried++], sizeof out->tried[0], "%s", name);
  size_t len = strlen(name);
  bool is_lib_so = strncmp(name, "lib", 3) == 0 && len >= 3 &&
                   strcmp(name + len - 3, ".so") == 0;
  if (strchr(name, '/') == NULL && !is_lib_so)
    snprintf(out->tried[out->ntried++], sizeof out->tried[0], "%s-%s.so",
             prefix, name);
}

int emu_max_abi_for_version(int code) {
  int minor = (code / 100) % 100;
  int major = code / 10000;
  if (major != 2 || minor < 23)
    return 0;
  if (minor == 23)
    return 1;
  if (minor <= 25)
    return 2;
  if (minor == 26)
    return 3;
  if (minor == 27)
    return 4;
  if (minor == 28)
    return 5;
  if (minor <= 30)
    return 6;
  return 7;
}

int emu_probe_order(int nccl_version, emu_host host, int forced_abi,
                    int versions[7]) {
  if (forced_abi >= 1 && forced_abi <= 7) {
    versions[0] = forced_abi;
    return 1;
  }
  int top = emu_max_abi_for_version(nccl_version);
  /* RCCL probes v7 only from 2.31, though older trees have a v7 header */
  if (host == EMU_HOST_RCCL && top > 6 && nccl_version < 23100)
    top = 6;
  int n = 0;
  for (int v = top; v >= 1; v--)
    versions[n++] = v;
  return n;
}

/* Fills the shape-independent entry points of a probed symbol. */
static void take_entry_points(emu_plugin *p) {
  switch (p->abi) {
  case 1:
    p->name = ((ncclProfiler_v1_t *)p->symbol)->name;
    p->stop = ((ncclProfiler_v1_t *)p->symbol)->stopEvent;
    p->finalize = ((ncclProfiler_v1_t *)p->symbol)->finalize;
    break;
  case 2:
    p->name = ((ncclProfiler_v2_t *)p->symbol)->name;
    p->stop = ((ncclProfiler_v2_t *)p->symbol)->stopEvent;
    p->finalize = ((ncclProfiler_v2_t *)p->symbol)->finalize;
    break;
  case 3:
    p->name = ((ncclProfiler_v3_t *)p->symbol)->name;
    p->stop = ((ncclProfiler_v3_t *)p->symbol)->stopEvent;
    p->finalize = ((ncclProfiler_v3_t *)p->symbol)->finalize;
    break;
  case 4:
    p->name = ((ncclProfiler_v4_t *)p->symbol)->name;
    p->stop = ((ncclProfiler_v4_t *)p->symbol)->stopEvent;
    p->finalize = ((ncclProfiler_v4_t *)p->symbol)->finalize;
    break;
  case 5:
    p->name = ((ncclProfiler_v5_t *)p->symbol)->name;
    p->stop = ((ncclProfiler_v5_t *)p->symbol)->stopEvent;
    p->finalize = ((ncclProfiler_v5_t *)p->symbol)->finalize;
    break;
  case 6:
    p->name = ((ncclProfiler_v6_t *)p->symbol)->name;
    p->stop = ((ncclProfiler_v6_t *)p->symbol)->stopEvent;
    p->finalize = ((ncclProfiler_v6_t *)p->symbol)->finalize;
    break;
  default:
    p->name = ((ncclProfiler_v7_t *)p->symbol)->name;
    p->stop = ((ncclProfiler_v7_t *)p->symbol)->stopEvent;
    p->finalize = ((ncclProfiler_v7_t *)p->symbol)->finalize;
    break;
  }
}

/* Tries the probe order on `lib`; fills plugin_storage on success. */
static bool probe_symbols(void *lib) {
  int versions[7];
  int n = emu_probe_order(pretended_version, loader_options->host,
                          loader_options->abi, versions);
  for (int i = 0; i < n; i++) {
    char sym[32];
    snprintf(sym, sizeof sym, "ncclProfiler_v%d", versions[i]);
    void *s = dlsym(lib, sym);
    if (s == NULL)
      continue;
    plugin_storage.abi = versions[i];
    plugin_storage.symbol = s;
    snprintf(plugin_storage.symbol_name, sizeof plugin_storage.symbol_name,
             "%s", sym);
    take_entry_points(&plugin_storage);
    return true;
  }
  if (loader_options->abi != 0)
    snprintf(load_error, sizeof load_error,
             "plugin exports no ncclProfiler_v%d symbol (forced by --abi %d)",
             loader_options->abi, loader_options->abi);
  else
    snprintf(load_error, sizeof load_error,
             "plugin exports no ncclProfiler_v%d..v1 symbol (NCCL %d.%d "
             "probes v%d first)",
             n > 0 ? versions[0] : 0, pretended_version / 10000,
             (pretended_version / 100) % 100, n > 0 ? versions[0] : 0);
  return false;
}

/* Records where a handle came from, for the truth's load record. */
static void record_path(void *lib, const char *fallback) {
  snprintf(plugin_storage.path, sizeof plugin_storage.path, "%s", fallback);
  struct link_map *lm = NULL;
  if (lib != NULL && dlinfo(lib, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL &&
      lm->l_name != NULL && lm->l_name[0] != '\0')
    snprintf(plugin_storage.path, sizeof plugin_storage.path, "%s", lm->l_name);
}

/* RCCL_ENABLE_PROXY_TRACE set (not "0") under --host rccl. */
static bool proxy_trace_wanted(void) {
  const char *env = getenv("RCCL_ENABLE_PROXY_TRACE");
  return loader_options->host == EMU_HOST_RCCL && env != NULL &&
         env[0] != '\0' && strcmp(env, "0") != 0;
}

/* RCCL's ncclProfilerProxyTraceSiblingPath: the proxy-trace library in
 * the folder of the library that holds RCCL's code — ncclemu's own. */
static void proxy_trace_path(char *out, size_t n) {
  char exe[512];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) {
    snprintf(out, n, "%s", EMU_PROXY_TRACE_LIB);
    return;
  }
  exe[len] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash != NULL)
    *slash = '\0';
  snprintf(out, n, "%.400s/%s", exe, EMU_PROXY_TRACE_LIB);
}

/* No profiler library opened and RCCL_ENABLE_PROXY_TRACE: RCCL opens the
 * proxy-trace library as the plugin (§12). Returns its handle or NULL. */
static void *open_proxy_trace(void) {
  emu_proxy_trace *pt = &plugin_storage.proxy_trace;
  if (!pt->wanted)
    return NULL;
  pt->tried = true;
  void *lib = dlopen(pt->path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char *e = dlerror();
    snprintf(pt->error, sizeof pt->error, "%s", e ? e : "dlopen failed");
    return NULL;
  }
  pt->loaded = true;
  record_path(lib, pt->path);
  return lib;
}

/* One full load attempt; returns false with load_error set. */
static bool load_library(void) {
  const char *name = getenv("NCCL_PROFILER_PLUGIN");
  if (name != NULL && strcasecmp(name, "none") == 0) {
    snprintf(load_error, sizeof load_error,
             "NCCL_PROFILER_PLUGIN=none: profiling disabled");
    return false;
  }
  emu_resolution res;
  emu_resolve_names(name, loader_options->host, &res);
  void *lib = NULL;
  char errors[1024] = "";
  for (int i = 0; i < res.ntried && lib == NULL; i++) {
    const char *arg = res.tried[i][0] == '\0' ? NULL : res.tried[i];
    lib = dlopen(arg, RTLD_NOW | RTLD_LOCAL);
    if (lib != NULL) {
      record_path(lib, arg == NULL ? "(main program: STATIC_PLUGIN)" : arg);
      break;
    }
    const char *e = dlerror();
    size_t used = strlen(errors);
    snprintf(errors + used, sizeof errors - used, "%s%s", used ? "; " : "",
             e ? e : "unknown dlopen error");
  }
  plugin_storage.from_net_plugin = false;
  emu_proxy_trace *pt = &plugin_storage.proxy_trace;
  memset(pt, 0, sizeof *pt);
  pt->wanted = proxy_trace_wanted();
  if (pt->wanted)
    proxy_trace_path(pt->path, sizeof pt->path);
  if (lib == NULL)
    lib = open_proxy_trace();
  if (lib == NULL && net_plugin_lib != NULL) {
    lib = net_plugin_lib; /* NCCL reuses the net plugin library */
    plugin_storage.from_net_plugin = true;
    record_path(lib, loader_options->net_plugin);
  }
  if (lib == NULL) {
    /* Bounded parts, so the message fits (gcc -O0 -Wformat-truncation). */
    snprintf(load_error, sizeof load_error,
             "cannot load plugin '%.200s': %.760s",
             name ? name : "libnccl-profiler.so", errors);
    return false;
  }
  if (!probe_symbols(lib)) {
    if (!plugin_storage.from_net_plugin)
      dlclose(lib);
    return false;
  }
  plugin_storage.lib = lib;
  plugin_storage.usertag_valid =
      plugin_storage.abi >= 7 && pretended_version >= 23100;
  plugin_storage.host_rccl = loader_options->host == EMU_HOST_RCCL;
  plugin_storage.rccl_v6 = plugin_storage.host_rccl && plugin_storage.abi == 6;
  plugin_storage.rccl_231 =
      plugin_storage.host_rccl && pretended_version >= 23100;
  plugin_storage.rccl_v7 = plugin_storage.rccl_231 && plugin_storage.abi == 7;
  plugin_storage.rccl_layout = plugin_storage.rccl_v6 || plugin_storage.rccl_v7;
  /* RCCL looks the dump up in whichever library it loaded (§12) */
  if (plugin_storage.host_rccl)
    pt->dump = dlsym(lib, EMU_PROXY_TRACE_DUMP);
  return true;
}

emu_plugin *emu_loader_acquire(bool *loaded_now) {
  pthread_mutex_lock(&loader_mutex);
  emu_plugin *p = NULL;
  if (loaded_now != NULL)
    *loaded_now = false;
  if (load_status == EMU_LOAD_FAILED) {
    pthread_mutex_unlock(&loader_mutex);
    return NULL; /* sticky */
  }
  if (load_status == EMU_LOAD_SUCCESS) {
    ++refcount;
    p = current_plugin;
    pthread_mutex_unlock(&loader_mutex);
    return p;
  }
  if (!load_library()) {
    load_status = EMU_LOAD_FAILED;
    pthread_mutex_unlock(&loader_mutex);
    return NULL;
  }
  ++refcount;
  load_status = EMU_LOAD_SUCCESS;
  if (loaded_now != NULL)
    *loaded_now = true;
  EMU_STORE_RELEASE(&current_plugin, &plugin_storage);
  p = current_plugin;
  pthread_mutex_unlock(&loader_mutex);
  return p;
}

void emu_loader_release(bool *closed) {
  pthread_mutex_lock(&loader_mutex);
  if (closed != NULL)
    *closed = false;
  if (--refcount == 0) {
    if (load_status == EMU_LOAD_SUCCESS) {
      if (closed != NULL)
        *closed = true;
      EMU_STORE_RELEASE(&current_plugin, (emu_plugin *)NULL);
      if (!plugin_storage.from_net_plugin)
        dlclose(plugin_storage.lib);
      plugin_storage.lib = NULL;
      plugin_storage.proxy_trace.dump = NULL;
    }
    load_status = EMU_LOAD_READY;
  }
  pthread_mutex_unlock(&loader_mutex);
}

emu_plugin *emu_loader_current(void) {
  return EMU_LOAD_ACQUIRE(&current_plugin);
}

emu_load_status emu_loader_status(void) {
  pthread_mutex_lock(&loader_mutex);
  emu_load_status s = load_status;
  pthread_mutex_unlock(&loader_mutex);
  return s;
}

int emu_loader_refcount(void) {
  pthread_mutex_lock(&loader_mutex);
  int r = refcount;
  pthread_mutex_unlock(&loader_mutex);
  return r;
}

const char *emu_loader_error(void) {
  return load_error;
}

ncclResult_t ncclGetVersion(int *version) {
  if (version == NULL)
    return ncclInvalidArgument;
  *version = pretended_version;
  return ncclSuccess;
}

/* NCCL_DEBUG as NCCL reads it: unset or unknown prints nothing. */
static int nccl_debug_level(void) {
  static const struct {
    const char *name;
    int level;
  } levels[] = {{"VERSION", NCCL_LOG_VERSION},
                {"WARN", NCCL_LOG_WARN},
                {"INFO", NCCL_LOG_INFO},
                {"ABORT", NCCL_LOG_ABORT},
                {"TRACE", NCCL_LOG_TRACE}};
  const char *dbg = getenv("NCCL_DEBUG");
  for (size_t i = 0; dbg && i < sizeof levels / sizeof levels[0]; i++)
    if (strcasecmp(dbg, levels[i].name) == 0)
      return levels[i].level;
  return NCCL_LOG_NONE;
}

/* NCCL_DEBUG_SUBSYS as NCCL reads it: a comma list of subsystems (a
 * leading '^' keeps all but those), default INIT,BOOTSTRAP,ENV. */
static unsigned long nccl_debug_mask(void) {
  static const struct {
    const char *name;
    unsigned long bit;
  } subsys[] = {{"INIT", 0x1},         {"COLL", 0x2},    {"P2P", 0x4},
                {"SHM", 0x8},          {"NET", 0x10},    {"GRAPH", 0x20},
                {"TUNING", 0x40},      {"ENV", 0x80},    {"ALLOC", 0x100},
                {"CALL", 0x200},       {"PROXY", 0x400}, {"NVLS", 0x800},
                {"BOOTSTRAP", 0x1000}, {"REG", 0x2000},  {"PROFILE", 0x4000},
                {"RAS", 0x8000},       {"ALL", ~0UL}};
  const char *env = getenv("NCCL_DEBUG_SUBSYS");
  if (env == NULL || env[0] == '\0')
    return 0x1 | 0x1000 | 0x80;
  bool invert = env[0] == '^';
  unsigned long mask = 0;
  char list[256];
  snprintf(list, sizeof list, "%s", invert ? env + 1 : env);
  char *save = NULL;
  for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
    for (size_t i = 0; i < sizeof subsys / sizeof subsys[0]; i++)
      if (strcasecmp(t, subsys[i].name) == 0)
        mask |= subsys[i].bit;
  return invert ? ~mask : mask;
}

/* The logger handed to the plugin, filtering as NCCL's does: a message
 * prints when its level is at most NCCL_DEBUG's and its subsystem flags
 * meet NCCL_DEBUG_SUBSYS — WARNs included, so with NCCL_DEBUG unset
 * nothing prints. */
void emu_nccl_debug_log(ncclDebugLogLevel level, unsigned long flags,
                        const char *file, int line, const char *fmt, ...) {
  (void)file;
  (void)line;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if ((int)level > nccl_debug_level() || (flags & nccl_debug_mask()) == 0)
    return;
  if (level == NCCL_LOG_WARN && loader_options != NULL && loader_options->quiet)
    return;
  const char *host = getenv("CCLSCOPE_HOSTNAME");
  fprintf(stderr, "%s:%d:%ld NCCL %s %s\n", host ? host : "emu", (int)getpid(),
          (long)syscall(SYS_gettid), level == NCCL_LOG_WARN ? "WARN" : "INFO",
          msg);
}
