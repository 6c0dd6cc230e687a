#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/cli_jobs.sh — what -j/--jobs does to the CLI's commands: wall time,
# CPU time and peak memory of main before threads, this build with -j 1 and
# with -j 2 (or -j N), in interleaved rounds, and a calibration of how much
# of two CPUs the machine gives at each round. Results: docs/benchmarks.md
# "cclscope CLI on two threads". Run by hand, never as a test.
#
# usage: bench/cli_jobs.sh MAIN_CCLSCOPE BRANCH_CCLSCOPE TRACE_DIR [ROUNDS]
#   MAIN_CCLSCOPE    the cclscope binary of main before threads (a8d2729),
#                    or its build folder
#   BRANCH_CCLSCOPE  this branch's cclscope binary, or its build folder
#   TRACE_DIR        a trace folder (README: the 310 MB ncclemu trace)
#   ROUNDS           rounds of every command and variant (default 5)
# environment:
#   CMDS   the commands (default "check summary"; also merge, view: their
#          output goes to a temporary folder)
#   JOBS   the threaded variant's -j (default 2)
#
# Every round runs, for each command, main, -j 1 and -j JOBS one after the
# other, after a pair calibration: two copies of main's summary at the same
# time against one alone (pair/alone ≈ 1: two free CPUs; ≈ 2: one). The
# table gives the median and the best of the rounds; the speed-up is main's
# over -j JOBS for each (best/best is the one a loaded machine disturbs
# least). The outputs of -j 1 and -j JOBS are compared byte for byte.
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,24p' "$0" >&2
  exit 2
fi
bin() { if [ -d "$1" ]; then echo "$1/cclscope"; else echo "$1"; fi; }
main=$(bin "$1") branch=$(bin "$2") trace=$3 rounds=${4:-5}
cmds=${CMDS:-check summary} jobs=${JOBS:-2}
for b in "$main" "$branch"; do
  [ -x "$b" ] || { echo "no executable '$b'" >&2; exit 2; }
done
[ -d "$trace" ] || { echo "no folder '$trace'" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cli-jobs-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "# $(date -u '+%F %T UTC'), $(nproc) online CPUs, load average:" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "# trace: $trace, $(ls "$trace" | wc -l) files," \
  "$(cat "$trace"/* | wc -c) bytes (read once before the rounds)"
cat "$trace"/* >/dev/null # into the page cache
"$main" -q summary "$trace" >/dev/null

# one timed run: VARIANT CMD -> "wall user sys maxrss_kib" appended to
# $work/VARIANT.CMD; its stdout (and output file) kept as the last one
run() {
  local variant=$1 cmd=$2 exe args=()
  case $variant in
  main) exe=$main ;;
  j1) exe=$branch args=(-j 1) ;;
  jN) exe=$branch args=(-j "$jobs") ;;
  esac
  local out=()
  # One folder per variant, the same file name in each: a big trace's view
  # page names its tile folder after itself.
  mkdir -p "$work/$variant"
  case $cmd in merge | view) out=(-o "$work/$variant/$cmd.out") ;; esac
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" \
    "$exe" -q "${args[@]}" "$cmd" "${out[@]}" "$trace" \
    >"$work/$variant.$cmd.stdout" 2>/dev/null || true
  cat "$work/time" >>"$work/$variant.$cmd"
}

now() { date +%s.%N; }
for r in $(seq "$rounds"); do
  t0=$(now)
  "$main" -q summary "$trace" >/dev/null
  t1=$(now)
  "$main" -q summary "$trace" >/dev/null &
  "$main" -q summary "$trace" >/dev/null &
  wait
  t2=$(now)
  awk -v a="$t0" -v b="$t1" -v c="$t2" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { printf "%.2f %.2f %s\n", b - a, c - b, l }' >>"$work/calib"
  for cmd in $cmds; do
    for variant in main j1 jN; do run "$variant" "$cmd"; done
  done
  echo "# round $r done" >&2
done

for cmd in $cmds; do
  if ! cmp -s "$work/j1.$cmd.stdout" "$work/jN.$cmd.stdout"; then
    echo "DIFFERENT: $cmd's output with -j 1 and -j $jobs" >&2
    exit 1
  fi
  [ -e "$work/j1/$cmd.out" ] || continue
  if ! cmp -s "$work/j1/$cmd.out" "$work/jN/$cmd.out" ||
    { [ -d "$work/j1/$cmd.out.files" ] &&
      ! diff -r "$work/j1/$cmd.out.files" "$work/jN/$cmd.out.files" >/dev/null; }; then
    echo "DIFFERENT: $cmd's -o file with -j 1 and -j $jobs" >&2
    exit 1
  fi
done

# median and min of column COL (1-based) of FILE
stat() { sort -n -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
  END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.2f %.2f", m, v[1] }'; }
cpu() { awk '{ print $2 + $3 }' "$1" | sort -n | awk '{ v[NR] = $1 }
  END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.2f", m }'; }
rss() { sort -n -k4,4 "$1" | tail -1 | awk '{ printf "%.1f", $4 / 1024 }'; }

echo
echo "pair calibration (main summary): alone s, pair s, load: $(
  awk '{ printf "%s%s/%s/%s", (NR > 1 ? "; " : ""), $1, $2, $3 }' "$work/calib")"
echo
echo "| command | variant | wall s median | wall s best | CPU s median (user+sys) | max RSS MiB | speed-up over main (median, best) |"
echo "|---|---|---|---|---|---|---|"
for cmd in $cmds; do
  read -r mm mb <<<"$(stat "$work/main.$cmd" 1)"
  for variant in main j1 jN; do
    f=$work/$variant.$cmd
    read -r wm wb <<<"$(stat "$f" 1)"
    name=$variant
    [ "$variant" = j1 ] && name="-j 1"
    [ "$variant" = jN ] && name="-j $jobs"
    speed=$(awk -v a="$mm" -v b="$wm" -v c="$mb" -v d="$wb" \
      'BEGIN { printf "%.2fx, %.2fx", a / b, c / d }')
    echo "| $cmd | $name | $wm | $wb | $(cpu "$f") | $(rss "$f") | $speed |"
  done
done
