#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/read_formats.sh — what two builds of cclscope take to read the same
# trace as binary and as JSONL: wall time, CPU time and peak memory of each
# reading command, the builds alternated run by run so that they share the
# machine's minutes. Results: docs/benchmarks.md ("binary event lines come
# decoded"). Run by hand, never as a test.
#
# usage: bench/read_formats.sh BUILD_A BUILD_B BINARY_TRACE JSONL_TRACE [ROUNDS]
#   BUILD_A, BUILD_B  cclscope binaries, or their build folders
#   BINARY_TRACE      a .cst file or folder (e.g. bench_plugin --mode writer
#                     with CCLSCOPE_FORMAT=binary)
#   JSONL_TRACE       the same run's JSONL file or folder
#   ROUNDS            rounds of every command, format and build (default 2)
# environment:
#   CMDS   the commands (default "check summary"; merge, perfetto and view
#          write their output to a temporary folder)
#   JOBS   -j of every run (default 2)
#
# Before the rounds each trace is read once (into the page cache) and both
# builds' `summary --json` of each are compared: the builds must give the
# same answers, or the comparison is meaningless. Prints one line per run
# (command, format, build, wall s, user s, sys s, max RSS KiB), then the
# range of each (command, format, build) as a Markdown table.
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '2,24p' "$0" >&2
  exit 2
fi
bin() { if [ -d "$1" ]; then echo "$1/cclscope"; else echo "$1"; fi; }
a=$(bin "$1") b=$(bin "$2") binary=$3 jsonl=$4 rounds=${5:-2}
cmds=${CMDS:-check summary} jobs=${JOBS:-2}
for x in "$a" "$b"; do
  [ -x "$x" ] || { echo "no executable '$x'" >&2; exit 2; }
done
for t in "$binary" "$jsonl"; do
  [ -e "$t" ] || { echo "no trace '$t'" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/read-formats-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "# $(date -u '+%F %T UTC'), $(nproc) online CPUs, load average:" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
for t in "$binary" "$jsonl"; do
  "$a" -q -j "$jobs" summary --json "$t" >"$work/a.json"
  "$b" -q -j "$jobs" summary --json "$t" >"$work/b.json"
  cmp -s "$work/a.json" "$work/b.json" ||
    { echo "the builds' summary --json of '$t' differ" >&2; exit 1; }
done

# one timed run: BUILD_NAME EXE CMD FORMAT TRACE
run() {
  local name=$1 exe=$2 cmd=$3 fmt=$4 trace=$5 out=()
  rm -rf "$work/out" && mkdir -p "$work/out"
  case $cmd in
  merge) out=(-o "$work/out/merged") ;;
  perfetto) out=(-o "$work/out/trace.json") ;;
  view) out=(-o "$work/out/view.html") ;;
  esac
  /usr/bin/time -o "$work/time" -f "%e %U %S %M" \
    "$exe" -q -j "$jobs" "$cmd" "${out[@]}" "$trace" >/dev/null
  echo "$cmd $fmt $name $(cat "$work/time")" | tee -a "$work/runs"
}

for ((r = 1; r <= rounds; r++)); do
  for cmd in $cmds; do
    for fmt in binary jsonl; do
      trace=$binary
      [ "$fmt" = jsonl ] && trace=$jsonl
      run A "$a" "$cmd" "$fmt" "$trace"
      run B "$b" "$cmd" "$fmt" "$trace"
    done
  done
done
echo "# $(date -u '+%F %T UTC'), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | format | build | wall s | user s | max RSS MB |"
echo "|---|---|---|---|---|---|"
sort -k1,1 -k2,2 -k3,3 "$work/runs" | awk '
  function flush() {
    if (key != "")
      printf "| %s | %s | %s | %.2f – %.2f | %.2f – %.2f | %.1f |\n", c, f, n,
             wmin, wmax, umin, umax, rss / 1024
  }
  {
    k = $1 " " $2 " " $3
    if (k != key) {
      flush()
      key = k; c = $1; f = $2; n = $3
      wmin = wmax = $4; umin = umax = $5; rss = $7
    } else {
      if ($4 < wmin) wmin = $4; if ($4 > wmax) wmax = $4
      if ($5 < umin) umin = $5; if ($5 > umax) umax = $5
      if ($7 > rss) rss = $7
    }
  }
  END { flush() }'
