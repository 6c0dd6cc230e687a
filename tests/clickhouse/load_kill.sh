#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/clickhouse/load_kill.sh — clickhouse.load_kill: a load cut in the
# middle by a server killed with SIGKILL, then run again, ends complete and
# exact. Twice: the other shard is killed (the server the loader talks to
# then refuses the INSERT), then the server the loader talks to. Each time
# the loader is paused (SIGSTOP) once some rows are stored and fewer than
# all, so that the cut falls in the middle whatever the machine's speed;
# it must then exit 1 with the reason, and the second run must add exactly
# the missing rows.
# usage: load_kill.sh CCLSCOPE NCCLEMU PLUGIN
set -euo pipefail
CCLSCOPE=$1 EMU=$2 PLUGIN=$3
. "$(dirname "$0")/ch_server.sh"
tmp=$(mktemp -d)
loader=
trap '[ -n "$loader" ] && kill -KILL "$loader" 2>/dev/null; ch_stop_all; rm -rf "$tmp"' EXIT
ch_setup "$tmp/ch"
ch_start 0
ch_start 1

ch_emulate "$tmp/traces" cut --scenario mixed --nodes 4 --ranks-per-node 8 --ops 3
files=("$tmp"/traces/*.jsonl)
expected=$(python3 "$CH_HERE/expect_rows.py" "${files[@]}" | awk '$1 == "timing" { print $2 }')
[ "$expected" -gt 1000 ] || ch_fail "only $expected timing records: too few to cut a load"

stored() { # timing rows of database $1 on both shards (those alive); 0
  local n=0 i v  # while the tables are being created
  for i in 0 1; do
    [ -n "${CH_PID[i]}" ] || continue
    v=$(ch_query "$i" "SELECT count() FROM $1.cclscope_timing_local" 2>/dev/null) || v=0
    [[ $v =~ ^[0-9]+$ ]] || v=0
    n=$((n + v))
  done
  echo $n
}

# cut DB VICTIM PATTERN: load DB in batches of 50 rows, kill server VICTIM
# in the middle; the loader must fail with PATTERN on stderr
cut() {
  local db=$1 victim=$2 pattern=$3 n rc=0 tries
  ch_create_args
  ch_load "$db" "${CH_CREATE[@]}" --batch-rows 50 "$tmp/traces" >"$tmp/out" 2>"$tmp/err" &
  loader=$!
  for tries in $(seq 1 600); do
    [ "$(stored "$db")" -gt 0 ] && break
    kill -0 "$loader" 2>/dev/null || break
    sleep 0.05
  done
  kill -STOP "$loader" 2>/dev/null || ch_fail "$db: the load ended before any row was seen stored: $(cat "$tmp/err")"
  n=$(stored "$db")
  [ "$n" -gt 0 ] && [ "$n" -lt "$expected" ] ||
    ch_fail "$db: $n of $expected timing rows stored when paused: not in the middle"
  ch_kill "$victim"
  kill -CONT "$loader"
  wait "$loader" || rc=$?
  loader=
  [ $rc = 1 ] || ch_fail "$db: the cut load exited $rc, expected 1: $(cat "$tmp/err")"
  grep -Eq "$pattern" "$tmp/err" || ch_fail "$db: stderr does not say why ($pattern): $(cat "$tmp/err")"
  grep -q "running the same command again completes the load" "$tmp/err" ||
    ch_fail "$db: stderr does not say what to do: $(cat "$tmp/err")"
  echo "ok: $db cut after $n of $expected rows: $(head -1 "$tmp/err")"
  ch_start "$victim"
  ch_load "$db" --batch-rows 50 "$tmp/traces" >"$tmp/out" 2>"$tmp/err" ||
    ch_fail "$db: the second load failed: $(cat "$tmp/err")"
  ch_check_exact "$db" "timing comms processes" "${files[@]}"
  ch_load "$db" "$tmp/traces" >"$tmp/out"
  grep -q "0 files loaded, ${#files[@]} already loaded" "$tmp/out" ||
    ch_fail "$db: a third load did not find every file loaded: $(cat "$tmp/out")"
}

cut other_shard 1 "answered HTTP [0-9]+: Code: [0-9]+, .*Exception: ."
cut entry_server 0 "no answer from http://127\.0\.0\.1:${CH_HTTP[0]}/"
echo "PASS"
