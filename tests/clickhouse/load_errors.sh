#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/clickhouse/load_errors.sh — clickhouse.load_errors: every failure of
# `cclscope load` is one clear line on stderr and exit status 1: no server
# on the port, a wrong password (ClickHouse's words, the password not
# shown), tables that do not exist (no --create), a table that rejects the
# rows (ClickHouse's parse error), --create ON CLUSTER where the servers
# have no ZooKeeper, an URL that is not http(s).
# usage: load_errors.sh CCLSCOPE NCCLEMU PLUGIN
set -euo pipefail
CCLSCOPE=$1 EMU=$2 PLUGIN=$3
. "$(dirname "$0")/ch_server.sh"
tmp=$(mktemp -d)
trap 'ch_stop_all; rm -rf "$tmp"' EXIT
ch_setup "$tmp/ch"
ch_start 0

ch_emulate "$tmp/traces" err --scenario mixed --nodes 1 --ranks-per-node 2 --ops 3

# expect_failure NAME PATTERN -- command...: exit 1, PATTERN on stderr
expect_failure() {
  local name=$1 pattern=$2
  shift 3
  local rc=0
  "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [ $rc = 1 ] || ch_fail "$name: exit status $rc, expected 1 (stderr: $(cat "$tmp/err"))"
  grep -Eq "$pattern" "$tmp/err" || ch_fail "$name: stderr does not match '$pattern': $(cat "$tmp/err")"
  if grep -q "$CH_PASSWORD" "$tmp/err" "$tmp/out"; then
    ch_fail "$name: the password is shown"
  fi
  echo "ok: $name: $(head -1 "$tmp/err")"
}

down=$(ch_free_port)
expect_failure "server down" "cclscope load: .*no answer from http://127\.0\.0\.1:$down/" -- \
  "$CCLSCOPE" load --clickhouse "http://127.0.0.1:$down" --create "$tmp/traces"
expect_failure "wrong password" "HTTP [0-9]+: .*Wrong password for user $CH_USER" -- \
  "$CCLSCOPE" load --clickhouse "$(ch_url 0)" --user "$CH_USER" --password wrong --create "$tmp/traces"
expect_failure "credentials from the environment" "Wrong password for user $CH_USER" -- \
  env CLICKHOUSE_URL="$(ch_url 0)" CLICKHOUSE_USER="$CH_USER" CLICKHOUSE_PASSWORD=wrong \
  "$CCLSCOPE" load "$tmp/traces"
expect_failure "no such tables" "(Table|Database) .*(doesn't|does not) exist.*--create" -- \
  env CLICKHOUSE_HOST=127.0.0.1 CLICKHOUSE_PORT="${CH_HTTP[0]}" CLICKHOUSE_USER="$CH_USER" \
  CLICKHOUSE_PASSWORD="$CH_PASSWORD" "$CCLSCOPE" load --database nothing "$tmp/traces"
# a comms table whose hostname column cannot take the host names
ch_query 0 "CREATE DATABASE bad" >/dev/null
ch_load bad --create "$tmp/traces" >/dev/null
ch_query 0 "TRUNCATE TABLE bad.cclscope_loads" >/dev/null
ch_query 0 "DROP TABLE bad.cclscope_comms" >/dev/null
ch_query 0 "CREATE TABLE bad.cclscope_comms (runId String, globalRank Nullable(Int32), hostname UInt8, pid UInt32, device Nullable(Int32), gpuUuid String, ctx UInt32, commId String, commName String, rank Int32, nranks Int32, nNodes Int32, file String, line UInt64) ENGINE = Memory" >/dev/null
expect_failure "rejected rows" "HTTP [0-9]+: .*Cannot parse" -- \
  ch_load bad "$tmp/traces"
# ON CLUSTER without ZooKeeper: ClickHouse's refusal, said
expect_failure "ON CLUSTER without a coordination service" "load: --create: .*answered HTTP [0-9]+: Code: [0-9]+, .*DDL" -- \
  ch_load oncluster --create --cluster "$CH_CLUSTER" "$tmp/traces"
expect_failure "not an http URL" "is not an http:// or https:// URL" -- \
  "$CCLSCOPE" load --clickhouse "127.0.0.1:${CH_HTTP[0]}" "$tmp/traces"
echo "PASS"
