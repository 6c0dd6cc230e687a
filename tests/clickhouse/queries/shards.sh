#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/clickhouse/queries/shards.sh — clickhouse.queries_shards: the
# shipped SQL (`cclscope sql QUERY --source table:...`) on the Distributed
# table of two clickhouse-server 18.16 shards, loaded by `cclscope load`,
# gives `cclscope summary --json`'s collectives and straggler tables field
# by field (own and inherited wait included), for the demo run and a
# 32-rank mixed run (compare.mjs of tests/clickhouse/chdb/ compares).
# The servers are tests/clickhouse/ch_server.sh's own, never the system's.
# usage: shards.sh CCLSCOPE NCCLEMU PLUGIN NODE
set -euo pipefail
CCLSCOPE=$1 EMU=$2 PLUGIN=$3 NODE=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ch_server.sh"
tmp=$(mktemp -d)
trap 'ch_stop_all; rm -rf "$tmp"' EXIT
ch_setup "$tmp/ch"
ch_start 0
ch_start 1
ch_create_args

# run NAME ncclemu-args...: record, load into database NAME, compare
check_run() {
  local name=$1
  shift
  CCLSCOPE_DIR=$tmp/$name CCLSCOPE_JOB_ID=$name CCLSCOPE_SUMMARY=off \
    "$EMU" --plugin "$PLUGIN" --quiet "$@" >/dev/null 2>&1 ||
    ch_fail "$name: ncclemu failed"
  ch_load "$name" "${CH_CREATE[@]}" -q "$tmp/$name" >"$tmp/$name.load" 2>&1 ||
    ch_fail "$name: the load failed: $(cat "$tmp/$name.load")"
  "$CCLSCOPE" -q summary --json "$tmp/$name" >"$tmp/$name.summary.json"
  local q
  for q in collectives stragglers_ranks stragglers_gpus; do
    { "$CCLSCOPE" sql "$q" --source "table:$name.cclscope_timing"
      echo "FORMAT JSONEachRow"; } >"$tmp/$name.$q.sql"
    ch_query 0 "$(cat "$tmp/$name.$q.sql")" >"$tmp/$name.$q.rows" ||
      ch_fail "$name: $q failed on the server: $(cat "$tmp/$name.$q.rows")"
  done
  "$NODE" "$here/compare_rows.mjs" "$tmp/$name.summary.json" "$tmp/$name" ||
    ch_fail "$name: the SQL on the shards differs from summary --json"
}

check_run demo --scenario mixed --nodes 2 --ranks-per-node 4 --ops 5 \
  --delay-rank 5 --delay-us 400 --step-marks
check_run mixed32 --scenario mixed --nodes 4 --ranks-per-node 8 --ops 5 \
  --delay-rank 13 --delay-us 300
echo "PASS"
