#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/clickhouse/load_demo.sh — clickhouse.load_demo: the demo workload
# (scripts/demo.sh's run: ncclemu mixed, 2 nodes x 4 ranks, ProxySteps on)
# into two clickhouse-server shards behind Distributed tables made by
# `load --create --cluster --shard`: every table holds exactly the rows of
# the files (timestamps to the ns), each row on the shard the sharding key
# names; loading
# again adds nothing, and neither does loading again without the markers
# (every line is found stored).
# usage: load_demo.sh CCLSCOPE NCCLEMU PLUGIN
set -euo pipefail
CCLSCOPE=$1 EMU=$2 PLUGIN=$3
. "$(dirname "$0")/ch_server.sh"
tmp=$(mktemp -d)
trap 'ch_stop_all; rm -rf "$tmp"' EXIT
ch_setup "$tmp/ch"
ch_start 0
ch_start 1

CCLSCOPE_MASK=default,proxystep ch_emulate "$tmp/traces" demo --scenario mixed \
  --nodes 2 --ranks-per-node 4 --ops 5 --delay-rank 5 --delay-us 400 --step-marks
files=("$tmp"/traces/*.jsonl)
[ ${#files[@]} -ge 2 ] || ch_fail "the emulated run wrote ${#files[@]} trace files"
all="timing comms processes events proxy_steps"

ch_create_args
ch_load demo "${CH_CREATE[@]}" --events --proxy-steps "$tmp/traces" >"$tmp/out1" ||
  ch_fail "the first load failed: $(cat "$tmp/out1")"
grep -q "${#files[@]} files loaded, 0 already loaded" "$tmp/out1" ||
  ch_fail "unexpected report: $(cat "$tmp/out1")"
ch_check_exact demo "$all" "${files[@]}"
for table in $all loads; do ch_check_shards demo "$table"; done
# every row carries its GPU's identity
n=$(ch_query 0 "SELECT count() FROM demo.cclscope_timing WHERE runId != 'demo' OR hostname = '' OR pid = 0 OR isNull(globalRank) OR commName = '' OR isNull(device)")
[ "$n" = 0 ] || ch_fail "$n timing rows without their GPU's identity"

# the same files again: nothing is sent
ch_load demo --events --proxy-steps "$tmp/traces" >"$tmp/out2" ||
  ch_fail "the second load failed: $(cat "$tmp/out2")"
grep -q "0 files loaded, ${#files[@]} already loaded" "$tmp/out2" ||
  ch_fail "the second load did not skip the loaded files: $(cat "$tmp/out2")"
ch_check_exact demo "$all" "${files[@]}"

# without the markers every file is read again, and every line is found
# stored: still nothing doubles
for i in 0 1; do ch_query "$i" "TRUNCATE TABLE demo.cclscope_loads_local"; done
ch_load demo --events --proxy-steps "$tmp/traces" >"$tmp/out3" ||
  ch_fail "the load without markers failed: $(cat "$tmp/out3")"
grep -q "rows sent: timing 0 comms 0 processes 0 events 0 proxy_steps 0" "$tmp/out3" ||
  ch_fail "rows were sent again: $(cat "$tmp/out3")"
ch_check_exact demo "$all" "${files[@]}"
n=$(ch_query 0 "SELECT count() FROM demo.cclscope_loads")
[ "$n" = $((${#files[@]} * 5)) ] || ch_fail "$n load markers, expected $((${#files[@]} * 5))"
echo "PASS"
