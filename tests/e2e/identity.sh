#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/identity.sh — every trace says which process of the job it is:
# ncclemu launches its workers as torchrun does (RANK, LOCAL_RANK,
# WORLD_SIZE), and each process record must carry them as globalRank
# (source RANK), localRank and worldSize; with one rank per process the
# global rank is also the rank in the world communicator (the ProfilerInit
# of commName "world"), and the lifecycle records carry the device
# ncclemu's emulated CUDA driver gave (the rank's index on its node) and a
# GPU UUID unique to that GPU; with --no-devices, "device" is null and the
# UUID "" (as on a machine without CUDA). Without launcher variables the
# fields are null: that is plugin.test_config.
# usage: identity.sh NCCLEMU PLUGIN
set -euo pipefail
emu=$1 plugin=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-identity-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CCLSCOPE_SUMMARY=off
check() { # DIR DEVICES(yes|no)
python3 - "$1" "$2" <<'PY'
import json, pathlib, sys
files = sorted(pathlib.Path(sys.argv[1]).glob("*.jsonl"))
devices = sys.argv[2] == "yes"
assert len(files) == 4, f"expected 4 trace files, got {len(files)}"
seen, uuids = set(), set()
for f in files:
    recs = [json.loads(l) for l in f.read_text().splitlines() if l.strip()]
    proc = recs[0]
    assert proc["recordType"] == "process", f
    g = proc.get("globalRank")
    assert proc.get("globalRankSource") == "RANK", (f, proc.get("globalRankSource"))
    assert proc.get("worldSize") == 4, (f, proc.get("worldSize"))
    assert proc.get("localRank") == g % 2, (f, g, proc.get("localRank"))
    inits = [r for r in recs if r.get("type") == "ProfilerLifecycle"
             and r.get("func") == "ProfilerInit"]
    world = [r for r in inits if r.get("commName") == "world"]
    assert world, f"{f}: no world communicator init"
    assert world[0]["rank"] == g, (f, "world rank", world[0]["rank"], "globalRank", g)
    for r in inits:
        if devices:
            assert r.get("device") == g % 2, (f, "device", r.get("device"))
            assert r["gpuUuid"].startswith("GPU-"), (f, r["gpuUuid"])
            uuids.add(r["gpuUuid"])
        else:
            assert "device" in r and r["device"] is None, (f, r.get("device"))
            assert r["gpuUuid"] == "", (f, r["gpuUuid"])
    seen.add(g)
print(f"identity: globalRank of {len(files)} processes = world ranks {sorted(seen)}, "
      f"{len(uuids)} GPU UUIDs")
assert seen == {0, 1, 2, 3}, seen
assert not devices or len(uuids) == 4, uuids
PY
}
CCLSCOPE_DIR="$work/t" "$emu" --plugin "$plugin" --scenario multi-node \
  --nodes 2 --ranks-per-node 2 --pace none --quiet
check "$work/t" yes
CCLSCOPE_DIR="$work/n" "$emu" --plugin "$plugin" --scenario multi-node \
  --nodes 2 --ranks-per-node 2 --pace none --quiet --no-devices
check "$work/n" no
