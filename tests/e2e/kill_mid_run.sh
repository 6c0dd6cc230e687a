# SPDX-License-Identifier: Apache-2.0
# tests/e2e/kill_mid_run.sh — sourced by the tests that SIGKILL a process
# while the plugin writes its trace (compress.sh, overload.sh,
# binary_kill.sh). The caller defines fail().
#
# kill_when_written PID LOG PATTERN BYTES: wait until the driver's LOG says
# "running" (30 s at most, else fail), then until the file that PATTERN (a
# glob, unquoted on purpose) names holds more than BYTES bytes (30 s at
# most: several flushes have reached it), then SIGKILL PID and reap it.
kill_when_written() {
  local pid=$1 log=$2 pattern=$3 bytes=$4 size
  for _ in $(seq 600); do
    grep -q running "$log" 2>/dev/null && break
    sleep 0.05
  done
  grep -q running "$log" || fail "the driver did not start"
  for _ in $(seq 600); do
    # shellcheck disable=SC2086 # the pattern is a glob
    size=$(stat -c %s $pattern 2>/dev/null || echo 0)
    [ "$size" -gt "$bytes" ] && break
    sleep 0.05
  done
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
}
