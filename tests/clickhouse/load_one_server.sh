#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/clickhouse/load_one_server.sh — clickhouse.load_one_server: one
# server, no cluster: `load --create` makes a database that does not exist
# yet and its MergeTree tables, the rows are exact; loading the same files
# with --events --proxy-steps then sends only those (the other tables are
# marked), exact too, and the markers are one per file and table; the
# server and credentials come from the CLICKHOUSE_* variables.
# usage: load_one_server.sh CCLSCOPE NCCLEMU PLUGIN
set -euo pipefail
CCLSCOPE=$1 EMU=$2 PLUGIN=$3
. "$(dirname "$0")/ch_server.sh"
tmp=$(mktemp -d)
trap 'ch_stop_all; rm -rf "$tmp"' EXIT
ch_setup "$tmp/ch"
ch_start 0

CCLSCOPE_MASK=default,proxystep ch_emulate "$tmp/traces" one --scenario mixed \
  --nodes 2 --ranks-per-node 2 --ops 3
files=("$tmp"/traces/*.jsonl)
all="timing comms processes events proxy_steps"

export CLICKHOUSE_HOST=127.0.0.1 CLICKHOUSE_PORT=${CH_HTTP[0]} CLICKHOUSE_USER=$CH_USER \
  CLICKHOUSE_PASSWORD=$CH_PASSWORD CLICKHOUSE_DATABASE=fresh
"$CCLSCOPE" load --create "$tmp/traces" >"$tmp/out" 2>&1 ||
  ch_fail "load --create into a new database failed: $(cat "$tmp/out")"
engine=$(ch_query 0 "SELECT engine FROM system.tables WHERE database = 'fresh' AND name = 'cclscope_timing'")
[ "$engine" = MergeTree ] || ch_fail "fresh.cclscope_timing is '$engine', not a MergeTree"
ch_check_exact fresh "timing comms processes" "${files[@]}"
# the same files with events and ProxySteps: only those are sent
"$CCLSCOPE" load --events --proxy-steps "$tmp/traces" >"$tmp/out" 2>&1 ||
  ch_fail "load --events --proxy-steps failed: $(cat "$tmp/out")"
grep -q "${#files[@]} files loaded, 0 already loaded; rows sent: timing 0 comms 0 processes 0 events [1-9][0-9]* proxy_steps [1-9]" "$tmp/out" ||
  ch_fail "the second load did not send only events and ProxySteps: $(cat "$tmp/out")"
ch_check_exact fresh "$all" "${files[@]}"
n=$(ch_query 0 "SELECT count() FROM fresh.cclscope_loads")
[ "$n" = $((${#files[@]} * 5)) ] || ch_fail "$n load markers, expected $((${#files[@]} * 5))"
echo "PASS"
