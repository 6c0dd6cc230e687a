#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/replay_real_minimal.sh — a minimal_profiler recording made on
# real NCCL (tests/cli/fixtures/real_minimal_profiler: lifecycle lines
# without recordType, CUPTI kernel records interleaved) replayed through
# the plugin keeps every event: as many NCCL events replayed as the file
# holds (counted here without cclscope's reader), all of them written by
# the plugin again (processEnd), the same events by type, parent type, end,
# states and thread (check_replay), the replayed trace what the replay
# called (check_truth); the CUPTI records are not profiler calls: reported
# as skipped, with their count.
# usage: replay_real_minimal.sh NCCLEMU PLUGIN CHECK_REPLAY CHECK_TRUTH FIXTURES
set -euo pipefail
emu=$1 plugin=$2 check_replay=$3 check_truth=$4 fixtures=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-replay-real-mp-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off
fail() { echo "FAIL: $*"; exit 1; }

read -r events activities < <(python3 - "$fixtures" <<'PY'
import glob, json, sys
ev = act = 0
for f in glob.glob(sys.argv[1] + '/*.jsonl'):
    for line in open(f):
        if not line.strip():
            continue
        r = json.loads(line)
        if r.get('recordType') == 'event' and r.get('type') != 'ProfilerLifecycle':
            ev += 1
        elif r.get('recordType') == 'cuptiActivity':
            act += 1
print(ev, act)
PY
)
[ "$events" -gt 0 ] && [ "$activities" -gt 0 ] || fail "the fixture has no events or no CUPTI records"

if ! CCLSCOPE_DIR="$work/replayed" "$emu" --plugin "$plugin" --replay "$fixtures" \
  --truth "$work/truth.jsonl" >"$work/replay.log" 2>&1; then
  tail -n 30 "$work/replay.log"; fail "ncclemu --replay of $fixtures failed"
fi
grep "ncclemu: replay" "$work/replay.log"
grep -q "minimal_profiler format" "$work/replay.log" || fail "not read as a minimal_profiler trace"
grep -Eq "ncclemu: replay: .*: pid [0-9]+ .* 4 communicator\(s\), $events event\(s\)," "$work/replay.log" ||
  fail "the replay does not replay the file's $events events"
grep -q ": $activities GPU activity record(s) (CUPTI) skipped (not profiler calls)" "$work/replay.log" ||
  fail "the $activities CUPTI records are not reported as skipped"

# every replayed event was written by the plugin: nothing dropped
python3 - "$work/replayed" "$events" <<'PY'
import glob, json, sys
written = 0
for f in glob.glob(sys.argv[1] + '/*.jsonl'):
    for line in open(f):
        r = json.loads(line)
        if r.get('recordType') == 'processEnd':
            c = r['counters']
            assert c['droppedStarts'] == 0 and c['droppedStops'] == 0, c
            written += r['eventsWritten']
assert written == int(sys.argv[2]), 'replayed traces hold %d events, the recording %s' % (written, sys.argv[2])
print('ok: %d events recorded, %d replayed and written' % (int(sys.argv[2]), written))
PY
"$check_replay" "$fixtures" "$work/replayed" 2>/dev/null
truths=("$work"/truth.jsonl*)
"$check_truth" "$work/replayed" "${truths[@]}"
