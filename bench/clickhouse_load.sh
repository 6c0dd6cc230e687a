#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/clickhouse_load.sh — how fast `cclscope load` fills one ClickHouse
# server (docs/benchmarks.md, "cclscope load into ClickHouse"): one
# clickhouse-server of our own (tests/clickhouse/ch_server.sh: a temporary
# folder, free loopback ports, never the system's service), an emulated
# mixed run through the real plugin with ProxySteps, then ROUNDS loads of
# it into fresh databases, each way:
#   default  timing, comms and processes rows (what summary's SQL needs):
#            bound by reading the trace (most of its lines are events)
#   all      --events --proxy-steps as well: every record a row
# Prints a Markdown table: median and best wall time, rows/s and MB/s of
# trace text (the files' size) at the median, the loader's own CPU time
# (user + sys, median) and peak memory, and the server's CPU time during
# the load (median; from /proc, merges it finished by then included). On a
# busy machine the wall time includes waiting for a CPU; CPU times do not.
# usage: bench/clickhouse_load.sh BUILD_DIR [NODES RANKS_PER_NODE OPS ROUNDS]
set -euo pipefail
build=${1:?usage: clickhouse_load.sh BUILD_DIR [NODES RANKS_PER_NODE OPS ROUNDS]}
nodes=${2:-4} rpn=${3:-8} ops=${4:-20} rounds=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
CCLSCOPE=$build/cclscope EMU=$build/ncclemu PLUGIN=$build/libnccl-profiler-cclscope.so
. "$here/../tests/clickhouse/ch_server.sh"
tmp=$(mktemp -d)
trap 'ch_stop_all; rm -rf "$tmp"' EXIT
ch_setup "$tmp/ch"
ch_start 0
CCLSCOPE_MASK=default,proxystep ch_emulate "$tmp/traces" bench --scenario mixed \
  --nodes "$nodes" --ranks-per-node "$rpn" --ops "$ops"
# the tables of each database are made beforehand (by loading a tiny run
# with --create), so that the timed loads do not include the DDL
ch_emulate "$tmp/tiny" tiny --scenario single-node --ops 1
bytes=$(du -cb "$tmp"/traces/*.jsonl | tail -1 | cut -f1)
nfiles=$(ls "$tmp"/traces/*.jsonl | wc -l)
echo "trace: $nfiles files, $((bytes / 1000000)) MB, $nodes x $rpn ranks, --ops $ops"
echo "clickhouse-server $(ch_query 0 'SELECT version()'), $(nproc) CPUs"
echo
# CPU seconds (user + sys) the server has used so far
server_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/${CH_PID[0]}/stat"
}
echo "| tables | rows | median s | best s | rows/s | MB/s of trace | loader CPU s | server CPU s | loader peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
for mode in default all; do
  args=()
  [ $mode = all ] && args=(--events --proxy-steps)
  times=()
  for r in $(seq 1 "$rounds"); do
    db=bench_${mode}_$r
    "$CCLSCOPE" load --quiet --clickhouse "$(ch_url 0)" --user "$CH_USER" \
      --password "$CH_PASSWORD" --database "$db" --create "${args[@]}" "$tmp/tiny"
    before=$(server_cpu)
    /usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$CCLSCOPE" load --quiet \
      --clickhouse "$(ch_url 0)" --user "$CH_USER" --password "$CH_PASSWORD" \
      --database "$db" "${args[@]}" "$tmp/traces"
    read -r s kb user sys <"$tmp/time"
    after=$(server_cpu)
    times+=("$s $kb $(awk -v a="$user" -v b="$sys" 'BEGIN { print a + b }') $(awk -v a="$before" -v b="$after" 'BEGIN { print b - a }')")
  done
  rows=0
  for t in timing comms processes events proxy_steps loads; do
    n=$(ch_query 0 "SELECT count() FROM bench_${mode}_1.cclscope_$t WHERE runId = 'bench'")
    [ $t = loads ] || rows=$((rows + n))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v rows=$rows -v bytes=$bytes -v mode=$mode \
    -v n=${#times[@]} '
    { s[NR] = $1; kb[NR] = $2; cpu[NR] = $3; srv[NR] = $4 }
    END {
      med = s[int((n + 1) / 2)]; best = s[1]; peak = 0
      for (i = 1; i <= n; i++) if (kb[i] > peak) peak = kb[i]
      # the median of the CPU times
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
        if (cpu[j] < cpu[i]) { t = cpu[i]; cpu[i] = cpu[j]; cpu[j] = t }
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
        if (srv[j] < srv[i]) { t = srv[i]; srv[i] = srv[j]; srv[j] = t }
      m = int((n + 1) / 2)
      printf "| %s | %d | %.2f | %.2f | %.0f | %.1f | %.2f | %.2f | %.0f MB |\n", mode, rows,
        med, best, rows / med, bytes / 1e6 / med, cpu[m], srv[m], peak / 1024
    }'
done
