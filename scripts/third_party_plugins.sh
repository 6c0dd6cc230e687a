#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/third_party_plugins.sh — NVIDIA's own profiler plugins under
# ncclemu, as a regression check of the emulator (and of those plugins).
#
# Builds the example plugin and Inspector from a checkout of NCCL's public
# repository (their source is not ours, so it is never copied in: the
# checkout is an argument) against stub CUDA headers of our own
# (scripts/third_party/cuda_stub/), then runs each under build/ncclemu for
# every scenario, pretending NCCL 2.28.9, NCCL 2.31.2 and RCCL, with
# --check. Prints a pass/fail matrix and writes it, with the first lines of
# every failure, as Markdown. Not run by CI; what the last run found is in
# docs/ncclemu.md ("Third-party plugins under ncclemu").
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/third_party_plugins.sh [options] NCCL_CHECKOUT [BUILD_DIR]

Builds NVIDIA's example profiler plugin and Inspector from NCCL_CHECKOUT
(a checkout of NCCL's public repository: plugins/profiler/, or the older
ext-profiler/) with the system C++ compiler against our stub CUDA headers
(scripts/third_party/cuda_stub/), and runs each under ncclemu for every
scenario of `ncclemu --list` and every host below, with --check.

BUILD_DIR (default build/third-party) receives the libraries, one log per
run (runs/PLUGIN/HOST/SCENARIO.log) and the report (report.md). Nothing is
written into the checkout.

options:
  --ncclemu PATH     the ncclemu binary (default: build/ncclemu of this
                     repository; build it first)
  --plugins LIST     comma-separated: example,inspector (default both)
  --hosts LIST       comma-separated hosts: an NCCL release for
                     --nccl-version, or 'rccl' for --host rccl
                     (default 2.28.9,2.31.2,rccl)
  --scenarios LIST   comma-separated scenarios (default: all of --list)
  --timeout S        ncclemu --timeout per run (default 120)
  --build-only       build the plugins and stop
  --help             this text

A run passes when ncclemu exits 0 (no crash, hang or --check violation)
and the plugin took part: a run in which every init left *context NULL
(ncclemu's --truth says so) is INERT, the plugin having switched itself
off. Exit status: 0 when every run passed, 1 when some failed or were
inert, 2 on a usage or build error.

Each plugin runs with its own switches on: the example with
NCCL_PROFILE_EVENT_MASK=32767 (every event its v5/v6 interface knows) and
NCCL_PROFILE_DUMP_FILE in the run's folder; Inspector with
NCCL_INSPECTOR_ENABLE=1, NCCL_INSPECTOR_DUMP_DIR in the run's folder,
NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=1000 (its dump thread
writes every millisecond; unset, it writes nothing) and
NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0. The example is built as its Makefile
builds it, without the CUDA runtime, and gets our stub runtime the way an
application that links libcudart gives it one (ncclemu --preload);
Inspector links it, as its Makefile does.
EOF
}

die() {
  echo "third_party_plugins.sh: $*" >&2
  exit 2
}

repo=$(cd "$(dirname "$0")/.." && pwd)
stub_src=$repo/scripts/third_party/cuda_stub
ncclemu=$repo/build/ncclemu
plugins=example,inspector
hosts=2.28.9,2.31.2,rccl
scenarios=
timeout=120
build_only=0
positional=()
while [ $# -gt 0 ]; do
  case "$1" in
  --help | -h)
    usage
    exit 0
    ;;
  --ncclemu) ncclemu=${2:?--ncclemu needs a path}; shift 2 ;;
  --plugins) plugins=${2:?--plugins needs a list}; shift 2 ;;
  --hosts) hosts=${2:?--hosts needs a list}; shift 2 ;;
  --scenarios) scenarios=${2:?--scenarios needs a list}; shift 2 ;;
  --timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
  --build-only) build_only=1; shift ;;
  -*) die "unknown option $1 (--help)" ;;
  *) positional+=("$1"); shift ;;
  esac
done
if [ ${#positional[@]} -lt 1 ] || [ ${#positional[@]} -gt 2 ]; then
  usage >&2
  exit 2
fi
checkout=$(cd "${positional[0]}" 2>/dev/null && pwd) ||
  die "${positional[0]}: no such folder"
build=${positional[1]:-$repo/build/third-party}
mkdir -p "$build"
build=$(cd "$build" && pwd)
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout: not a number of seconds: $timeout"

# ---- the checkout: where the plugins are, which commit it is
plugin_root=
for candidate in plugins/profiler ext-profiler; do
  if [ -f "$checkout/$candidate/example/plugin.c" ] ||
    [ -f "$checkout/$candidate/example/plugin.cc" ]; then
    plugin_root=$checkout/$candidate
    break
  fi
done
[ -n "$plugin_root" ] ||
  die "$checkout: no plugins/profiler/example (nor ext-profiler/example): not an NCCL checkout?"
commit=$(git -C "$checkout" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout)")
commit_date=$(git -C "$checkout" log -1 --format=%cs 2>/dev/null || echo unknown)
nccl_release=unknown
if [ -f "$checkout/makefiles/version.mk" ]; then
  nccl_release=$(awk '$1 ~ /^NCCL_(MAJOR|MINOR|PATCH|SUFFIX)$/ { v[$1] = $3 }
    END { printf "%s.%s.%s%s", v["NCCL_MAJOR"], v["NCCL_MINOR"], v["NCCL_PATCH"], v["NCCL_SUFFIX"] }' \
    "$checkout/makefiles/version.mk")
fi

# ---- build: our stub CUDA runtime, then each plugin
cc=${CC:-cc}
cxx=${CXX:-c++}
stub_build=$build/cuda_stub
mkdir -p "$stub_build"
"$cc" -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -I"$stub_src" \
  -Wl,-soname,libcudart.so -o "$stub_build/libcudart.so" \
  "$stub_src/cudart_stub.c" -ldl || die "building the stub CUDA runtime failed"

built=() # plugin names that built
declare -A library=()
build_example() {
  local src=$plugin_root/example out=$build/example
  mkdir -p "$out"
  # The example's Makefile: $(CXX) -Inccl -I$(CUDA_INC) -fPIC -shared (plus
  # -g here, for readable backtraces); releases before 2.27 wrote it in C.
  local compiler=$cxx sources=("$src"/*.cc)
  if [ ! -f "${sources[0]}" ]; then
    compiler=$cc
    sources=("$src"/*.c)
  fi
  "$compiler" -g -I"$src/nccl" -I"$src" -I"$stub_src" -fPIC -shared \
    -o "$out/libnccl-profiler-example.so" "${sources[@]}" >"$out/build.log" 2>&1
}
build_inspector() {
  local src=$plugin_root/inspector out=$build/inspector
  [ -f "$src/inspector_plugin.cc" ] || return 3
  mkdir -p "$out"
  # Its Makefile writes version.cc into the source folder; ours goes to
  # the build folder and names the commit.
  cat >"$out/version.cc" <<EOF
extern "C" {
const char* get_git_version_info() { return "nccl@$commit"; }
}
EOF
  local sources=() f
  for f in "$src"/*.cc; do
    [ "$(basename "$f")" = version.cc ] || sources+=("$f")
  done
  # Its Makefile's flags (c++14 without nvcc), its -lcudart -ldl -lpthread.
  "$cxx" -std=c++14 -g -O2 -Wall -Wextra -DNCCL_INSPECTOR_ENABLE_WARN=0 \
    -I"$stub_src" -I"$src" -I"$src/nccl" -fPIC -shared \
    -o "$out/libnccl-profiler-inspector.so" "${sources[@]}" "$out/version.cc" \
    -L"$stub_build" -Wl,-rpath,"$stub_build" -lcudart -ldl -lpthread \
    >"$out/build.log" 2>&1
}
IFS=, read -r -a plugin_list <<<"$plugins"
for p in "${plugin_list[@]}"; do
  case "$p" in
  example | inspector) ;;
  *) die "--plugins: unknown plugin '$p' (example, inspector)" ;;
  esac
  rc=0
  "build_$p" || rc=$?
  if [ $rc -eq 3 ]; then
    echo "$p: not in this checkout, skipped"
    continue
  fi
  [ $rc -eq 0 ] || { cat "$build/$p/build.log" >&2; die "building $p failed"; }
  library[$p]=$build/$p/libnccl-profiler-$p.so
  built+=("$p")
  echo "built ${library[$p]}"
done
[ ${#built[@]} -gt 0 ] || die "no plugin built"
[ "$build_only" -eq 1 ] && exit 0

# ---- runs
[ -x "$ncclemu" ] || die "$ncclemu: not built (cmake --build build --target ncclemu)"
if [ -z "$scenarios" ]; then
  scenarios=$("$ncclemu" --list | awk '{ print $1 }' | paste -sd, -)
fi
IFS=, read -r -a scenario_list <<<"$scenarios"
IFS=, read -r -a host_list <<<"$hosts"

host_args() { # the ncclemu options of a host column, into host_opts
  case "$1" in
  rccl) host_opts=(--host rccl) ;;
  *) host_opts=(--nccl-version "$1") ;;
  esac
}

# What a failed run said first: ncclemu's own verdict lines, else the tail.
first_lines() {
  local log=$1 lines
  lines=$(grep -E -i 'crash|signal|fail|error|violation|unwritten|blocked|timed out|timeout|abort|assert|hung' \
    "$log" | grep -v -E '^\s*$' | head -3 || true)
  [ -n "$lines" ] || lines=$(grep -v -E '^\s*$' "$log" | tail -3 || true)
  printf '%s' "$lines" | cut -c1-300
}

declare -A result=() # plugin|host|scenario -> pass / FAIL / INERT
declare -A symbol=() # plugin|host -> the interface ncclemu loaded (truth)
failures=()          # plugin|host|scenario|why
for p in "${built[@]}"; do
  for h in "${host_list[@]}"; do
    for s in "${scenario_list[@]}"; do
      dir=$build/runs/$p/$h/$s
      rm -rf "$dir"
      mkdir -p "$dir"
      log=$build/runs/$p/$h/$s.log
      env_vars=()
      extra=()
      case "$p" in
      example)
        env_vars=(NCCL_PROFILE_EVENT_MASK=32767 NCCL_PROFILE_DUMP_FILE="$dir/trace")
        extra=(--preload "$stub_build/libcudart.so")
        ;;
      inspector)
        env_vars=(NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_DUMP_DIR="$dir/dump"
          NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=1000
          NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0)
        ;;
      esac
      host_args "$h"
      cmd=("$ncclemu" --plugin "${library[$p]}" --scenario "$s" "${host_opts[@]}"
        --check --timeout "$timeout" --truth "$dir/truth" "${extra[@]}")
      rc=0
      (cd "$dir" && env "${env_vars[@]}" "${cmd[@]}") >"$log" 2>&1 || rc=$?
      # The plugin's inits, and those that left it without a context.
      inits=$(cat "$dir"/truth* 2>/dev/null | grep -c '"call":"init"' || true)
      no_context=$(cat "$dir"/truth* 2>/dev/null | grep '"call":"init"' |
        grep -c '"ctx":"0x0000000000000000"' || true)
      outputs=$(find "$dir" -type f ! -name 'truth*' | wc -l)
      if [ -z "${symbol[$p|$h]:-}" ]; then
        symbol[$p|$h]=$(cat "$dir"/truth* 2>/dev/null | grep -o -m1 '"symbol":"[^"]*"' |
          cut -d'"' -f4 || true)
      fi
      if [ $rc -ne 0 ]; then
        result[$p|$h|$s]=FAIL
        failures+=("$p|$h|$s|exit $rc")
      elif [ "$inits" -gt 0 ] && [ "$no_context" -eq "$inits" ]; then
        result[$p|$h|$s]=INERT
        failures+=("$p|$h|$s|every init ($inits) left *context NULL")
      else
        result[$p|$h|$s]=pass
      fi
      printf '%-10s %-7s %-12s %-5s (%s/%s inits without a context, %s files written)\n' \
        "$p" "$h" "$s" "${result[$p|$h|$s]}" "$no_context" "$inits" "$outputs"
    done
  done
done

# ---- the report: a matrix (stdout and Markdown), then each failure
report=$build/report.md
{
  echo "# NVIDIA's profiler plugins under ncclemu"
  echo
  echo "NCCL checkout: commit \`$commit\` ($commit_date), release $nccl_release; run $(date -u +%Y-%m-%d)."
  echo "ncclemu: cclscope commit \`$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)\`, --check, --timeout $timeout."
  echo
  loaded=()
  for p in "${built[@]}"; do
    for h in "${host_list[@]}"; do
      loaded+=("$p $h: \`${symbol[$p|$h]:-none}\`")
    done
  done
  joined=$(IFS=';' && echo "${loaded[*]}")
  echo "Interfaces loaded: ${joined//;/, }."
  echo
  header="| scenario |"
  rule="|---|"
  for p in "${built[@]}"; do
    for h in "${host_list[@]}"; do
      header+=" $p $h |"
      rule+="---|"
    done
  done
  echo "$header"
  echo "$rule"
  for s in "${scenario_list[@]}"; do
    row="| \`$s\` |"
    for p in "${built[@]}"; do
      for h in "${host_list[@]}"; do
        row+=" ${result[$p|$h|$s]} |"
      done
    done
    echo "$row"
  done
  echo
  if [ ${#failures[@]} -eq 0 ]; then
    echo "Every run passed."
  else
    echo "## Failures (first lines of each log)"
    for f in "${failures[@]}"; do
      IFS='|' read -r p h s why <<<"$f"
      echo
      echo "### $p, $h, $s ($why)"
      echo
      echo '```'
      first_lines "$build/runs/$p/$h/$s.log"
      echo
      echo '```'
    done
  fi
} >"$report"

echo
sed -n '/^| scenario/,/^$/p' "$report"
echo "${#failures[@]} of $((${#built[@]} * ${#host_list[@]} * ${#scenario_list[@]})) runs failed or were inert; report: $report"
[ ${#failures[@]} -eq 0 ]
