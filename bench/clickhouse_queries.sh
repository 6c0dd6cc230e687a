#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/clickhouse_queries.sh — what summary's tables cost as ClickHouse SQL
# beside `cclscope summary --json` on the same traces (docs/benchmarks.md,
# "summary's tables in ClickHouse: 32 to 1,024 ranks"). For each size it
# records an emulated `mixed` run through the real plugin (mask default,
# CCLSCOPE_COMPRESS=zstd, 8 ranks per node and per process), then times,
# ROUNDS times each (median):
#   cli     cclscope summary --json TRACE: wall and CPU (user + sys)
#   chdb    the shipped SQL (`cclscope sql Q --source file:TRACE/*.jsonl.zst`)
#           read in place by chdb (bench/chdb_queries.mjs): wall and the
#           CPU of its process
#   server  the same SQL on one clickhouse-server of our own
#           (tests/clickhouse/ch_server.sh) after `cclscope load` and
#           OPTIMIZE ... FINAL (no merge left running): wall of the HTTP
#           request and the server's CPU during it (from /proc)
# for Q = collectives, stragglers_ranks, stragglers_gpus. Every answer's row
# count must equal the length of summary's table (collectives.rows,
# stragglers.ranks, stragglers.gpus), or the script stops: a wrong answer is
# not timed (the tests, tests/clickhouse, prove the fields equal). Each line
# carries the 1-minute load average when it was measured: on a busy machine
# the wall times include waiting for a CPU, the CPU times do not.
# Needs clickhouse-server (Debian's package) and chdb (`npm ci --no-audit
# --no-fund` in tests/clickhouse/chdb).
# usage: bench/clickhouse_queries.sh BUILD_DIR [OPS ROUNDS [RANKS...]]
#        (defaults: 2 iterations, 3 rounds, 32 256 1024 ranks)
set -euo pipefail
build=${1:?usage: clickhouse_queries.sh BUILD_DIR [OPS ROUNDS [RANKS...]]}
ops=${2:-2} rounds=${3:-3}
sizes=("${@:4}")
[ ${#sizes[@]} -gt 0 ] || sizes=(32 256 1024)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2034 # EMU and PLUGIN: for ch_server.sh's ch_emulate
CCLSCOPE=$build/cclscope EMU=$build/ncclemu PLUGIN=$build/libnccl-profiler-cclscope.so
# shellcheck disable=SC1091 source-path=SCRIPTDIR source=../tests/clickhouse/ch_server.sh
. "$here/../tests/clickhouse/ch_server.sh"
queries=(collectives stragglers_ranks stragglers_gpus)
tmp=$(mktemp -d)
trap 'ch_stop_all; rm -rf "$tmp"' EXIT
ch_setup "$tmp/ch"
ch_start 0

# the 1-minute load average now
load_now() { cut -d' ' -f1 /proc/loadavg; }
# CPU seconds (user + sys) the server has used so far
server_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/${CH_PID[0]}/stat"
}
# the median of the numbers on stdin (one a line; the lower one of two)
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# seconds between two date +%s.%N stamps
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

echo "clickhouse-server $(ch_query 0 'SELECT version()'), $(nproc) CPUs, $(uname -m)," \
  "mixed --ops $ops, mask default, zstd, $rounds rounds (medians)"
echo
echo "| ranks | trace | timing rows | what | rows (coll. / ranks / GPUs) | wall s | CPU s | load avg |"
echo "|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  dir=$tmp/r$n
  CCLSCOPE_MASK=default CCLSCOPE_COMPRESS=zstd ch_emulate "$dir" "r$n" --scenario mixed \
    --nodes $((n / 8)) --ranks-per-node 8 --ranks-per-process 8 --ops "$ops" \
    --max-lifecycle-ms 60000 --timeout 3600
  nfiles=$(find "$dir" -name '*.jsonl.zst' | wc -l)
  [ "$nfiles" -gt 0 ] || ch_fail "$n ranks: no .jsonl.zst files in $dir"
  bytes=$(du -cb "$dir"/*.jsonl.zst | tail -1 | cut -f1)
  trace="$nfiles files, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB .zst"

  # cclscope summary --json: the row counts every answer must give
  walls=() cpus=() loads=()
  for _ in $(seq 1 "$rounds"); do
    loads+=("$(load_now)")
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$CCLSCOPE" -q summary --json "$dir" >"$tmp/summary.json"
    read -r s user sys <"$tmp/time"
    walls+=("$s")
    cpus+=("$(awk -v a="$user" -v b="$sys" 'BEGIN { print a + b }')")
  done
  expect=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
if s["stragglers"]["basis"] != "timing":
    sys.exit("summary: straggler basis " + s["stragglers"]["basis"] + ", not timing")
print(len(s["collectives"]["rows"]), len(s["stragglers"]["ranks"]), len(s["stragglers"]["gpus"]))
' "$tmp/summary.json") || ch_fail "$n ranks: summary --json is not what the queries answer"
  read -r want_coll want_ranks want_gpus <<<"$expect"
  [ "$want_coll" -gt 0 ] || ch_fail "$n ranks: summary has no collectives rows"

  # the load into the server (not the figure here: the load benchmark's)
  db=q$n
  ch_load "$db" --quiet --create "$dir"
  ch_query 0 "OPTIMIZE TABLE $db.cclscope_timing FINAL" >/dev/null
  timing_rows=$(ch_query 0 "SELECT count() FROM $db.cclscope_timing")
  printf "| %s | %s | %s | \`summary --json\` | %s / %s / %s | %s | %s | %s |\n" "$n" "$trace" \
    "$timing_rows" "$want_coll" "$want_ranks" "$want_gpus" \
    "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" \
    "$(printf '%s\n' "${loads[@]}" | median)"

  # the shipped SQL read in place by chdb
  specs=()
  for q in "${queries[@]}"; do
    "$CCLSCOPE" sql "$q" --source "file:$dir/*.jsonl.zst" >"$tmp/$q.sql"
    specs+=("$q=$tmp/$q.sql")
  done
  load_before=$(load_now)
  node "$here/chdb_queries.mjs" "$rounds" "${specs[@]}" >"$tmp/chdb.out"
  load_after=$(load_now)
  chdb_rows=() chdb_wall=0 chdb_cpu=0
  while read -r q rows wall cpu; do
    chdb_rows+=("$rows")
    chdb_wall=$(awk -v a="$chdb_wall" -v b="$wall" 'BEGIN { print a + b }')
    chdb_cpu=$(awk -v a="$chdb_cpu" -v b="$cpu" 'BEGIN { print a + b }')
    printf "| %s | | | chdb in place: \`%s\` | %s | %s | %s | %s |\n" "$n" "$q" "$rows" "$wall" "$cpu" \
      "$load_before – $load_after"
  done <"$tmp/chdb.out"
  [ "${chdb_rows[*]}" = "$want_coll $want_ranks $want_gpus" ] ||
    ch_fail "$n ranks: chdb's answers have ${chdb_rows[*]} rows, summary's tables $expect"
  printf '| %s | | | chdb in place: the three | | **%s** | **%s** | |\n' "$n" "$chdb_wall" "$chdb_cpu"

  # the same SQL on the server, on the loaded table
  srv_rows=() srv_wall=0 srv_cpu=0
  for q in "${queries[@]}"; do
    sql=$("$CCLSCOPE" sql "$q" --source "table:$db.cclscope_timing")
    walls=() cpus=() loads=()
    for _ in $(seq 1 "$rounds"); do
      loads+=("$(load_now)")
      before=$(server_cpu)
      t0=$(date +%s.%N)
      ch_query 0 "$sql" >"$tmp/answer.tsv" || ch_fail "$n ranks: $q failed on the server"
      t1=$(date +%s.%N)
      after=$(server_cpu)
      walls+=("$(elapsed "$t0" "$t1")")
      cpus+=("$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.2f", b - a }')")
    done
    rows=$(wc -l <"$tmp/answer.tsv")
    srv_rows+=("$rows")
    wall=$(printf '%s\n' "${walls[@]}" | median)
    cpu=$(printf '%s\n' "${cpus[@]}" | median)
    srv_wall=$(awk -v a="$srv_wall" -v b="$wall" 'BEGIN { print a + b }')
    srv_cpu=$(awk -v a="$srv_cpu" -v b="$cpu" 'BEGIN { print a + b }')
    printf "| %s | | | server 18.16: \`%s\` | %s | %s | %s | %s |\n" "$n" "$q" "$rows" "$wall" "$cpu" \
      "$(printf '%s\n' "${loads[@]}" | median)"
  done
  [ "${srv_rows[*]}" = "$want_coll $want_ranks $want_gpus" ] ||
    ch_fail "$n ranks: the server's answers have ${srv_rows[*]} rows, summary's tables $expect"
  printf '| %s | | | server 18.16: the three | | **%s** | **%s** | |\n' "$n" "$srv_wall" "$srv_cpu"
  rm -rf "$dir"
done
