#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/emu/third_party_script.sh — scripts/third_party_plugins.sh works
# without NCCL's source: its --help, its refusal of a folder that is not an
# NCCL checkout, our stub CUDA headers compiling as C and C++ with every
# declaration NVIDIA's plugins use, the stub runtime answering as CUDA does
# (with and without ncclemu's emulated driver), and a whole run over a fake
# checkout (a git repository of our own with two tiny plugins where NCCL
# keeps the example and Inspector): the correct one passes, the one that
# leaves every *context NULL is INERT, the exit status is 1 and the report
# names the commit and the failure.
# usage: third_party_script.sh EMU CUDA_DRIVER
#   EMU the ncclemu binary; CUDA_DRIVER its libncclemu-cuda.so
set -euo pipefail
emu=$1 driver=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
script=$repo/scripts/third_party_plugins.sh
stub=$repo/scripts/third_party/cuda_stub
work=$(mktemp -d "${TMPDIR:-/tmp}/third-party-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

# ---- --help, and a folder that is not an NCCL checkout
help=$("$script" --help) || fail "--help exited $?"
grep -q 'usage: scripts/third_party_plugins.sh' <<<"$help" || fail "--help: no usage line"
grep -q 'NCCL_CHECKOUT' <<<"$help" || fail "--help does not name NCCL_CHECKOUT"
mkdir "$work/empty"
rc=0
"$script" "$work/empty" "$work/b0" >"$work/empty.out" 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "a folder without plugins: exit $rc, not 2"
grep -q 'not an NCCL checkout' "$work/empty.out" || fail "a folder without plugins: $(cat "$work/empty.out")"

# ---- the stub headers: every declaration the plugins use, C and C++
cat >"$work/probe.c" <<'EOF'
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
typedef void (*set_device_fn)(int, int);
int main(int argc, char **argv) {
  CUdevice device = 0;
  CUuuid uuid;
  CUresult driver_status = CUDA_SUCCESS;
  memset(&uuid, 0, sizeof uuid);
  int ordinal = -1;
  /* no driver loaded yet: no device */
  if (cudaGetDevice(&ordinal) != cudaErrorNoDevice)
    return 10;
  if (strcmp(cudaGetErrorString(cudaErrorNoDevice),
             "no CUDA-capable device is detected") != 0)
    return 11;
  /* ncclemu's driver, as a worker loads it, with a device set */
  void *lib = argc < 2 ? NULL : dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (lib == NULL)
    return 12;
  set_device_fn set_device = (set_device_fn)dlsym(lib, "emu_cuda_set_device");
  set_device(0, 3);
  if (cudaGetDevice(&ordinal) != cudaSuccess || ordinal != 3)
    return 13;
  cudaStream_t stream = NULL;
  cudaEvent_t start, stop, untimed, never;
  if (cudaEventCreate(&start) != cudaSuccess ||
      cudaEventCreateWithFlags(&stop, cudaEventDefault) != cudaSuccess ||
      cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming) !=
          cudaSuccess ||
      cudaEventCreate(&never) != cudaSuccess)
    return 14;
  cudaEventRecord(start, stream);
  cudaEventRecord(stop, stream);
  cudaEventRecord(untimed, stream);
  float ms = -1;
  if (cudaEventQuery(stop) != cudaSuccess ||
      cudaEventElapsedTime(&ms, start, stop) != cudaSuccess || ms < 0)
    return 15;
  if (cudaEventElapsedTime(&ms, start, untimed) !=
          cudaErrorInvalidResourceHandle ||
      cudaEventElapsedTime(&ms, start, never) !=
          cudaErrorInvalidResourceHandle)
    return 16;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaEventDestroy(untimed);
  cudaEventDestroy(never);
  printf("ok %d %d %d\n", (int)device, (int)driver_status, uuid.bytes[0]);
  return 0;
}
EOF
cat >"$work/probe.cc" <<'EOF'
#include <cuda.h>
#include <cuda_runtime.h>
// The example plugin's calls, as C++ sees them (the two-argument create).
int probe() {
  cudaEvent_t event;
  if (cudaEventCreate(&event, 0) != cudaSuccess) return 1;
  if (cudaEventCreateWithFlags(&event, cudaEventDisableTiming) != cudaSuccess) return 1;
  CUuuid uuid = {};
  CUdevice device = 0;
  CUresult status = CUDA_SUCCESS;
  return uuid.bytes[0] + device + static_cast<int>(status);
}
EOF
mkdir "$work/lib"
cc -std=c11 -Wall -Wextra -Werror -fPIC -shared -I"$stub" -Wl,-soname,libcudart.so \
  -o "$work/lib/libcudart.so" "$stub/cudart_stub.c" -ldl || fail "the stub runtime does not build"
cc -std=c11 -Wall -Wextra -Werror -I"$stub" -o "$work/probe" "$work/probe.c" \
  -L"$work/lib" -Wl,-rpath,"$work/lib" -lcudart -ldl || fail "the stub headers do not compile as C"
c++ -std=c++14 -Wall -Wextra -Werror -I"$stub" \
  -c -o "$work/probe_cc.o" "$work/probe.cc" || fail "the stub headers do not compile as C++"
rc=0
"$work/probe" "$driver" >"$work/probe.out" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "the stub runtime answered wrongly (probe exit $rc: see probe.c)"

# ---- a fake checkout: NCCL's layout, our two tiny plugins
fake=$work/nccl
mkdir -p "$fake/plugins/profiler/example" "$fake/plugins/profiler/inspector" "$fake/makefiles"
printf 'NCCL_MAJOR   := 2\nNCCL_MINOR   := 99\nNCCL_PATCH   := 1\nNCCL_SUFFIX  :=\n' \
  >"$fake/makefiles/version.mk"
# The v5 interface as function pointers (the same layout as NCCL's).
plugin_head='#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
typedef int (*init_fn)(void**, uint64_t, int*, const char*, int, int, int, void*);
struct profiler_v5 {
  const char* name;
  init_fn init;
  int (*start)(void*, void**, void*);
  int (*stop)(void*);
  int (*record)(void*, int, void*);
  int (*finalize)(void*);
};
static char event_storage;
static int start(void*, void** handle, void*) { *handle = &event_storage; return 0; }
static int stop(void*) { return 0; }
static int record(void*, int, void*) { return 0; }
static int finalize(void*) { return 0; }'
# The example: a correct plugin; it times its init with CUDA events (so it
# needs the runtime that ncclemu --preload gives it).
cat >"$fake/plugins/profiler/example/plugin.cc" <<EOF
$plugin_head
static int context_storage;
static int init(void** context, uint64_t, int* mask, const char*, int, int, int, void*) {
  cudaEvent_t a, b;
  float ms = 0;
  cudaEventCreate(&a, 0);
  cudaEventCreate(&b, 0);
  cudaEventRecord(a, 0);
  cudaEventRecord(b, 0);
  if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) return 1;
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  const char* env = getenv("NCCL_PROFILE_EVENT_MASK");
  __atomic_store_n(mask, env ? atoi(env) : 0, __ATOMIC_RELAXED);
  *context = &context_storage;
  return 0;
}
extern "C" struct profiler_v5 ncclProfiler_v5 = {"fake-example", init, start, stop, record, finalize};
EOF
# The Inspector stand-in: asks for its device, then switches itself off
# (success, *context left NULL), as Inspector does when its CUDA setup fails.
cat >"$fake/plugins/profiler/inspector/inspector_plugin.cc" <<EOF
$plugin_head
static int init(void** context, uint64_t, int*, const char*, int, int, int, void*) {
  int device = -1;
  *context = NULL;
  return cudaGetDevice(&device) == cudaSuccess ? 0 : 1;
}
extern "C" struct profiler_v5 ncclProfiler_v5 = {"fake-inspector", init, start, stop, record, finalize};
EOF
git -C "$fake" init -q
git -C "$fake" add -A
git -C "$fake" -c user.name=test -c user.email=test@example.invalid commit -q -m fake
commit=$(git -C "$fake" rev-parse HEAD)

rc=0
"$script" --ncclemu "$emu" --hosts 2.31.2,rccl --scenarios single-node,multi-node \
  --timeout 60 "$fake" "$work/build" >"$work/run.out" 2>&1 || rc=$?
report=$work/build/report.md
[ $rc -eq 1 ] || { cat "$work/run.out"; fail "a run with an inert plugin: exit $rc, not 1"; }
[ -f "$report" ] || fail "no report.md"
grep -q "commit \`$commit\`" "$report" || fail "the report does not name the checkout's commit"
grep -q 'release 2.99.1' "$report" || fail "the report does not name the release"
# shellcheck disable=SC2016 # the backticks are the report's Markdown
grep -qF '| `single-node` | pass | pass | INERT | INERT |' "$report" ||
  { cat "$report"; fail "single-node: not pass for the example and INERT for the stand-in"; }
# shellcheck disable=SC2016 # the backticks are the report's Markdown
grep -qF '| `multi-node` | pass | pass | INERT | INERT |' "$report" ||
  { cat "$report"; fail "multi-node: not pass for the example and INERT for the stand-in"; }
grep -q '### inspector, rccl, multi-node (every init (2) left \*context NULL)' "$report" ||
  { cat "$report"; fail "the report does not say why a run was inert"; }
[ -n "$(find "$work/build/example" -name libnccl-profiler-example.so)" ] || fail "no example library"
# nothing was written into the checkout
[ -z "$(git -C "$fake" status --porcelain)" ] || fail "the script wrote into the checkout"
echo "PASS: --help, refusal, stub headers (C, C++), stub runtime, a fake checkout's run and report"
