#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/clickhouse/ch_server.sh — two clickhouse-server instances of our own,
# for the tests: started as the current user from a temporary folder (their
# configuration, data and logs there), on free loopback ports, as the two
# shards of the cluster `cclscope_test` (remote_servers in both configs);
# never the system's service. Sourced by the tests:
#
#   . tests/clickhouse/ch_server.sh
#   ch_setup DIR          # write both configs under DIR; sets CH_HTTP[0..1]
#   ch_start I            # start server I (0 or 1), wait until it answers
#   ch_stop I             # stop it (SIGTERM, then SIGKILL), wait for the end
#   ch_kill I             # SIGKILL it at once
#   ch_query I SQL        # run SQL on server I over HTTP, print the result
#   ch_stop_all           # both (the tests trap it on EXIT)
#   ch_emulate DIR JOB ARGS...   # an emulated run through the real plugin
#   ch_load DB ARGS...    # cclscope load into server 0 as the test user
#   ch_create_args        # CH_CREATE=(--create --cluster ... --shard ...)
#   ch_check_exact DB "TABLES" FILES...  # the tables hold exactly the files
#
# The scripts set CCLSCOPE, EMU and PLUGIN (their arguments) first.
# Fails loudly when clickhouse-server is missing: scripts/install-deps.sh
# installs it (Debian's clickhouse-server package).
CH_BIN=${CH_BIN:-$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)}
CH_USER=cclscope_test
CH_PASSWORD=loader-secret
CH_CLUSTER=cclscope_test
CH_DIR=
CH_HTTP=()
CH_TCP=()
CH_PID=()

ch_fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# A loopback port nobody listens on now (bound and released by python3).
ch_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

ch_setup() {
  [ -x "$CH_BIN" ] || ch_fail "clickhouse-server is not installed (scripts/install-deps.sh installs Debian's clickhouse-server)"
  CH_DIR=$1
  local i
  for i in 0 1; do
    CH_HTTP[i]=$(ch_free_port)
    CH_TCP[i]=$(ch_free_port)
    while [ "${CH_TCP[i]}" = "${CH_HTTP[i]}" ]; do CH_TCP[i]=$(ch_free_port); done
  done
  for i in 0 1; do
    local d=$CH_DIR/server$i
    mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas" "$d/log"
    cat >"$d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/log/server.log</log><errorlog>$d/log/error.log</errorlog><console>0</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${CH_HTTP[i]}</http_port>
  <tcp_port>${CH_TCP[i]}</tcp_port>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>20</max_concurrent_queries>
  <remote_servers>
    <$CH_CLUSTER>
      <shard><replica><host>127.0.0.1</host><port>${CH_TCP[0]}</port><user>$CH_USER</user><password>$CH_PASSWORD</password></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>${CH_TCP[1]}</port><user>$CH_USER</user><password>$CH_PASSWORD</password></replica></shard>
    </$CH_CLUSTER>
  </remote_servers>
</yandex>
XML
    cat >"$d/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <$CH_USER>
      <password>$CH_PASSWORD</password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </$CH_USER>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
  done
}

# The server's HTTP URL with the test user's credentials.
ch_url() { echo "http://127.0.0.1:${CH_HTTP[$1]}"; }

ch_query() {
  curl -sS --fail-with-body -u "$CH_USER:$CH_PASSWORD" --data-binary "$2" "$(ch_url "$1")/"
}

ch_start() {
  local i=$1 d=$CH_DIR/server$1
  (cd "$d" && exec "$CH_BIN" --config-file="$d/config.xml" >"$d/log/stdout.log" 2>&1) &
  CH_PID[i]=$!
  local n
  for n in $(seq 1 600); do
    if curl -sS -o /dev/null "$(ch_url "$i")/ping" 2>/dev/null; then return 0; fi
    kill -0 "${CH_PID[i]}" 2>/dev/null || { cat "$d/log/stdout.log" "$d/log/error.log" >&2 2>/dev/null; ch_fail "clickhouse-server $i exited while starting"; }
    sleep 0.2
  done
  ch_fail "clickhouse-server $i does not answer on port ${CH_HTTP[i]}"
}

ch_wait_gone() {
  local pid=$1 n
  for n in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  return 1
}

ch_stop() {
  local pid=${CH_PID[$1]:-}
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null
  ch_wait_gone "$pid" || { kill -KILL "$pid" 2>/dev/null; ch_wait_gone "$pid"; }
  CH_PID[$1]=
}

ch_kill() {
  local pid=${CH_PID[$1]:-}
  [ -n "$pid" ] || return 0
  kill -KILL "$pid" 2>/dev/null
  ch_wait_gone "$pid"
  CH_PID[$1]=
}

ch_stop_all() {
  ch_stop 0
  ch_stop 1
}

# ---- what the tests check ----
CH_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The loaded tables of database $1 (through server 0) hold exactly the rows
# of the trace files "${@:3}" for the tables listed in $2 (space-separated):
# counts, no (file, line) twice, the timestamps of timing rows, events and
# ProxySteps to the nanosecond.
ch_check_exact() {
  local db=$1 tables=$2
  shift 2
  local expect table n got sql
  expect=$(python3 "$CH_HERE/expect_rows.py" "$@") || ch_fail "expect_rows.py failed"
  while read -r table n; do
    case $table in
    timing_start_s_sum) sql="SELECT sum(intDiv(startNs, 1000000000)) FROM $db.cclscope_timing" ;;
    timing_start_ns_sum) sql="SELECT sum(startNs % 1000000000) FROM $db.cclscope_timing" ;;
    timing_duration_sum) sql="SELECT sum(durationNs) FROM $db.cclscope_timing" ;;
    events_duration_sum | proxy_steps_duration_sum)
      [[ " $tables " == *" ${table%_duration_sum} "* ]] || continue
      sql="SELECT sum(stopNs - startNs) FROM $db.cclscope_${table%_duration_sum} WHERE isNotNull(startNs) AND isNotNull(stopNs)"
      ;;
    *)
      [[ " $tables " == *" $table "* ]] || continue
      sql="SELECT count() FROM $db.cclscope_$table"
      got=$(ch_query 0 "SELECT count() - uniqExact(file, line) FROM $db.cclscope_$table") ||
        ch_fail "query on $db.cclscope_$table failed"
      [ "$got" = 0 ] || ch_fail "$db.cclscope_$table holds $got rows twice"
      ;;
    esac
    got=$(ch_query 0 "$sql") || ch_fail "query failed: $sql"
    [ "$got" = "$n" ] || ch_fail "$db: $table is $got, the files say $n"
    echo "ok: $db $table = $n"
  done <<<"$expect"
}

# The rows of table $2 of database $1 are where the Distributed table's
# sharding key sends them (cityHash64(runId, file) modulo the two shards'
# weights of 1: remainder 0 on the first shard, 1 on the second), and the
# two shards' tables add up to the Distributed one.
ch_check_shards() {
  local db=$1 table=$2 i wrong a b whole
  for i in 0 1; do
    wrong=$(ch_query "$i" "SELECT count() FROM $db.cclscope_${table}_local WHERE cityHash64(runId, file) % 2 != $i")
    [ "$wrong" = 0 ] || ch_fail "$db.$table: $wrong rows on shard $i that the sharding key sends elsewhere"
  done
  a=$(ch_query 0 "SELECT count() FROM $db.cclscope_${table}_local")
  b=$(ch_query 1 "SELECT count() FROM $db.cclscope_${table}_local")
  whole=$(ch_query 0 "SELECT count() FROM $db.cclscope_$table")
  [ $((a + b)) = "$whole" ] || ch_fail "$db.$table: shards hold $a + $b rows, the Distributed table $whole"
  echo "ok: $db $table: $a + $b rows on the shards, as the sharding key says"
}

# Run the loader against server 0 with the test user: ch_load DB ARGS...
ch_load() {
  local db=$1
  shift
  "$CCLSCOPE" load --clickhouse "$(ch_url 0)" --user "$CH_USER" \
    --password "$CH_PASSWORD" --database "$db" "$@"
}

# --create with the Distributed tables of the test cluster on both servers.
CH_CREATE=()
ch_create_args() {
  CH_CREATE=(--create --cluster "$CH_CLUSTER" --shard "$(ch_url 0)" --shard "$(ch_url 1)")
}

# An emulated run through the real plugin into folder $1, run id $2, more
# ncclemu options after (the slow-callback limits generous: the machine may
# be busy with other tests). Extra CCLSCOPE_* variables come from the
# caller's environment. Says what went wrong when it fails.
ch_emulate() {
  local dir=$1 job=$2
  shift 2
  CCLSCOPE_DIR=$dir CCLSCOPE_JOB_ID=$job CCLSCOPE_MODE=trace CCLSCOPE_SUMMARY=off \
    "$EMU" --plugin "$PLUGIN" --quiet --max-callback-ms 5000 \
    --max-lifecycle-ms 30000 "$@" >"$dir.emu.log" 2>&1 ||
    { cat "$dir.emu.log" >&2; ch_fail "ncclemu $* failed"; }
}
