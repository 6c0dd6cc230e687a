#!/usr/bin/env bash
# tests/e2e/demo.sh — the README's main job (scripts/demo.sh) on the
# build under test: it must finish, its traces must pass `cclscope check`,
# the summary must name rank 5 (delayed by 400 us at every operation) as
# the rank that arrives last in the world communicator, and the timeline,
# Perfetto trace and metrics files must exist.
# usage: demo.sh BUILD_DIR [timing|no-timing]
#   no-timing (sanitizer builds): every callback is several times slower
#   and 400 us of delay drowns in that noise; the straggler is then not
#   judged (the plain builds do), everything else is.
set -euo pipefail
build=$1 timing=${2:-timing}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT
# One run of the README's main job into $work/out; its log in $work/log.
run_demo() {
  rm -rf "$work/out"
  "$root/scripts/demo.sh" --no-build --build-dir "$build" --out "$work/out" >"$work/log" 2>&1 ||
    { echo "FAIL: scripts/demo.sh failed:"; tail -40 "$work/log"; exit 1; }
}
# World rank 5's lastFraction (-1: no row). Every (comm, rank) row is in
# the JSON output.
rank5_last() {
  "$build/cclscope" -q summary --json "$work/out/traces" >"$work/summary.json" ||
    { echo "FAIL: cclscope summary --json failed" >&2; exit 1; }
  python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["stragglers"]["ranks"]
world = [r for r in rows if r["commName"] == "world" and r["rank"] == 5]
print(world[0]["lastFraction"] if world else -1)' "$work/summary.json"
}
run_demo
for f in timeline.html trace.json; do
  [ -s "$work/out/$f" ] || { echo "FAIL: $f was not written"; exit 1; }
done
ls "$work"/out/metrics/*.prom >/dev/null 2>&1 || { echo "FAIL: no metrics textfile"; exit 1; }
grep -qE "cclscope check: .*: 0 errors.* OK" "$work/log" ||
  { echo "FAIL: check did not pass:"; grep -A3 "cclscope check" "$work/log"; exit 1; }
last=$(rank5_last)
if [ "$timing" = timing ]; then
  # Rank 5 must be the world communicator's straggler: last in at least 4
  # of 5 instances. 400 us is a wall-clock story: a machine busy with other
  # work can deschedule another rank for longer, so a miss is run again
  # (at most 3 runs; each is said), never judged from one unlucky run.
  runs=1
  while ! awk -v f="$last" 'BEGIN { exit !(f >= 0.8) }' && [ "$runs" -lt 3 ]; do
    echo "note: run $runs: world rank 5 was last in a fraction $last of its collectives (busy machine?); running the demo again"
    runs=$((runs + 1))
    run_demo
    last=$(rank5_last)
  done
  awk -v f="$last" 'BEGIN { exit !(f >= 0.8) }' ||
    { echo "FAIL: world rank 5 was last in a fraction $last of its collectives in $runs runs"; exit 1; }
  echo "ok: world rank 5 was last in a fraction $last of its collectives (run $runs)"
else
  [ "$last" != -1 ] || { echo "FAIL: no straggler row for world rank 5"; exit 1; }
  echo "note: sanitizer build: the straggler's identity is judged in the plain builds (here: $last)"
fi
grep -qE "cclscope view: .*, [1-9][0-9]* marks" "$work/log" ||
  { echo "FAIL: the timeline has no step marks"; exit 1; }
echo "PASS: the demo ran, checked clean, found the straggler and wrote the timeline"
