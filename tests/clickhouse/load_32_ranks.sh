#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/clickhouse/load_32_ranks.sh — clickhouse.load_32_ranks: a 32-rank
# mixed run (4 nodes x 8 GPUs), written zstd-compressed, into the two
# shards: timing, comms and processes hold exactly the files' records
# (timestamps to the ns), each row on the shard the sharding key names.
# usage: load_32_ranks.sh CCLSCOPE NCCLEMU PLUGIN
set -euo pipefail
CCLSCOPE=$1 EMU=$2 PLUGIN=$3
. "$(dirname "$0")/ch_server.sh"
tmp=$(mktemp -d)
trap 'ch_stop_all; rm -rf "$tmp"' EXIT
ch_setup "$tmp/ch"
ch_start 0
ch_start 1

CCLSCOPE_COMPRESS=zstd ch_emulate "$tmp/traces" r32 --scenario mixed --nodes 4 \
  --ranks-per-node 8 --ops 3
files=("$tmp"/traces/*.jsonl.zst)
[ ${#files[@]} -ge 4 ] || ch_fail "the emulated run wrote ${#files[@]} compressed trace files"

ch_create_args
ch_load r32 "${CH_CREATE[@]}" "$tmp/traces" >"$tmp/out" ||
  ch_fail "the load failed: $(cat "$tmp/out")"
cat "$tmp/out"
ch_check_exact r32 "timing comms processes" "${files[@]}"
for table in timing comms processes loads; do ch_check_shards r32 "$table"; done
# the GPU identity of every timing row: 32 (host, pid, device) GPUs
n=$(ch_query 0 "SELECT uniqExact(hostname, pid, device) FROM r32.cclscope_timing")
[ "$n" = 32 ] || ch_fail "timing rows name $n GPUs, expected 32"
echo "PASS"
