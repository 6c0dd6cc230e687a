/*
 * tests/stand_in_plugins/proxytrace_sibling.c — stands in for RCCL's
 * librccl-profiler-proxytrace.so, the library RCCL opens beside the profiler
 * when RCCL_ENABLE_PROXY_TRACE is set and in which it looks up
 * ncclProfilerProxyTraceDump (docs/nccl-behaviour.md §12). It exports only
 * that function, which logs one line through the logger it is given; no
 * profiler symbol, so nothing can mistake it for a plugin. Built as
 * librccl-profiler-proxytrace.so alone in a build folder of its own
 * ("proxytrace" beside "stand_in_plugins"), so a test chooses whether dlopen
 * finds it (LD_LIBRARY_PATH).
 */
#include <stddef.h>

#include "nccl/profiler.h"

void ncclProfilerProxyTraceDump(void *profilerContext, ncclDebugLogger_t logfn);

__attribute__((visibility("default"))) void
ncclProfilerProxyTraceDump(void *profilerContext, ncclDebugLogger_t logfn) {
  if (logfn != NULL)
    logfn(NCCL_LOG_INFO, 0, __FILE__, __LINE__,
          "proxytrace stand-in: dump for context %p", profilerContext);
}
