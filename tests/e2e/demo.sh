#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/demo.sh — the README's main job (scripts/demo.sh) on the
# build under test: it must finish, its traces must pass `cclscope check`,
# the summary must name rank 5 (delayed by 400 us at every operation) as
# the rank that arrives last in the world communicator and its verdict
# must name it as the straggler, and the timeline,
# Perfetto trace and metrics files must exist. A clean run's `check` prints
# no note and no error (events reclaimed as NCCL's normal behaviour are one
# line that says so, never a note[...] finding). The summary fits at least
# one network link (latency and bandwidth: the demo's sizes give the world
# communicator's links the three distinct sizes a fit needs), in its JSON
# and in its text.
# usage: demo.sh BUILD_DIR [timing|no-timing]
#   no-timing (sanitizer builds): every callback is several times slower
#   and 400 us of delay drowns in that noise; the straggler and the link
#   fit, both wall-clock stories, are then not judged (the plain builds
#   do), everything else is.
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
# World rank 5's lastFraction (-1: no row), and 1 when the first GPU of
# the "By GPU" rows is global rank 5 named with host, pid and device, the
# straggler verdict names it, and node 0's GPUs are told as inheriting
# their lateness (else 0). Every (comm, rank) row is in the JSON output, and each must carry its
# globalRank (ncclemu gives every rank a device: all can be named).
rank5_last() {
  "$build/cclscope" -q summary --json "$work/out/traces" >"$work/summary.json" ||
    { echo "FAIL: cclscope summary --json failed" >&2; exit 1; }
  python3 -c '
import json, sys
st = json.load(open(sys.argv[1]))["stragglers"]
rows, gpus = st["ranks"], st["gpus"]
missing = [r for r in rows if r.get("globalRank") is None]
if missing:
    print("FAIL: straggler rows without globalRank:", missing[:2], file=sys.stderr)
    sys.exit(1)
world = [r for r in rows if r["commName"] == "world" and r["rank"] == 5]
g = gpus[0] if gpus else {}
# Node 0 (global ranks 0-3) waits only through the pipeline (its stage
# receives from node 1, where rank 5 is): what it makes others wait is
# inherited, not its own.
victims = [x for x in gpus if x.get("globalRank") in (0, 1, 2, 3) and
           x["waitCausedUs"] > 1000]
inherited = all(x["ownWaitUs"] < x["inheritedWaitUs"] for x in victims)
if not inherited:
    print("note: own wait above inherited on node 0:", victims, file=sys.stderr)
v = st["verdict"]
named = v["gpu"]["globalRank"] if v["verdict"] == "gpu" else None
if named != 5:
    print("note: the verdict:", v["verdict"], named, v["confidence"], v["reason"],
          file=sys.stderr)
first = int(g.get("globalRank") == 5 and bool(g.get("host")) and
            g.get("pid") is not None and g.get("device") is not None and
            inherited and named == 5)
print(world[0]["lastFraction"] if world else -1, first)' "$work/summary.json"
}
run_demo
for f in timeline.html trace.json; do
  [ -s "$work/out/$f" ] || { echo "FAIL: $f was not written"; exit 1; }
done
ls "$work"/out/metrics/*.prom >/dev/null 2>&1 || { echo "FAIL: no metrics textfile"; exit 1; }
grep -qE "cclscope check: .*: 0 errors, 0 notes — OK" "$work/log" ||
  { echo "FAIL: check did not pass without notes:"; grep -A3 "cclscope check" "$work/log"; exit 1; }
# Nothing that reads like a fault: no finding (note[...] or error[...]),
# and reclaimed events, if any, told as normal.
if grep -E "(note|error)\[[a-z-]+\]" "$work/log"; then
  echo "FAIL: a clean demo run printed the findings above"; exit 1
fi
if grep -q "reclaimed" <(sed -n '/cclscope check /,/cclscope summary /p' "$work/log") &&
  ! grep -qE "^cclscope check: [0-9]+ events? that NCCL never stops .* this is how NCCL behaves, not a fault$" "$work/log"; then
  echo "FAIL: check mentions reclaimed events without saying they are normal:"
  grep -n "reclaim" "$work/log"; exit 1
fi
# The links the summary fitted (JSON), and its text's link rows that carry
# a fit: a bandwidth and an R² where unfitted rows say "not fitted".
fitted_links() {
  python3 -c '
import json, sys
links = json.load(open(sys.argv[1]))["network"]["links"]
ok = [l for l in links if l["fit"]["status"] == "ok" and l["distinctSizes"] >= 3]
print(len(ok), " ".join("%s:%d->%d" % (l["commName"], l["from"], l["to"]) for l in ok))' "$work/summary.json"
}
fitted_text_rows() {
  sed -n '/^Network/,/^  Slow/p' "$work/log" | grep -E "^  [^ ].*→" | grep -vc "not fitted" || true
}
verdict=$(rank5_last)
last=${verdict% *} first=${verdict#* }
if [ "$timing" = timing ]; then
  # Rank 5 must be the world communicator's straggler: last in at least 4
  # of 5 instances. 400 us is a wall-clock story: a machine busy with other
  # work can deschedule another rank for longer, so a miss is run again
  # (at most 3 runs; each is said), never judged from one unlucky run.
  # And the GPU that costs the job the most wait must be global rank 5.
  runs=1
  while ! { awk -v f="$last" 'BEGIN { exit !(f >= 0.8) }' && [ "$first" = 1 ]; } &&
    [ "$runs" -lt 3 ]; do
    echo "note: run $runs: world rank 5 was last in a fraction $last of its collectives, first GPU rank 5: $first (busy machine?); running the demo again"
    runs=$((runs + 1))
    run_demo
    verdict=$(rank5_last)
    last=${verdict% *} first=${verdict#* }
  done
  awk -v f="$last" 'BEGIN { exit !(f >= 0.8) }' ||
    { echo "FAIL: world rank 5 was last in a fraction $last of its collectives in $runs runs"; exit 1; }
  [ "$first" = 1 ] ||
    { echo "FAIL: the first GPU of the summary is not global rank 5 (with host, pid, device), the verdict does not name it, or node 0's GPUs own their lateness, in $runs runs"; exit 1; }
  echo "ok: world rank 5 was last in a fraction $last of its collectives, and is the first GPU (run $runs)"
  fits=$(fitted_links)
  [ "${fits%% *}" -ge 1 ] ||
    { echo "FAIL: the summary fitted no network link (JSON):"; sed -n '/^Network/,/^  Slow/p' "$work/log"; exit 1; }
  rows=$(fitted_text_rows)
  [ "$rows" -ge 1 ] ||
    { echo "FAIL: the summary's text shows no fitted link row:"; sed -n '/^Network/,/^  Slow/p' "$work/log"; exit 1; }
  echo "ok: ${fits%% *} network links fitted (${fits#* }), $rows fitted rows in the text"
else
  [ "$last" != -1 ] || { echo "FAIL: no straggler row for world rank 5"; exit 1; }
  echo "note: sanitizer build: the straggler's identity is judged in the plain builds (here: $last)"
fi
grep -qE "cclscope view: .*, [1-9][0-9]* marks" "$work/log" ||
  { echo "FAIL: the timeline has no step marks"; exit 1; }
echo "PASS: the demo ran, checked clean, found the straggler and wrote the timeline"
