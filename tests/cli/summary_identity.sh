#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/summary_identity.sh — summary names the GPU behind every
# straggler row: a 2-node x 2-GPU ncclemu run (ncclemu launches as torchrun
# does, so each process record has globalRank from RANK) with a split
# communicator; every row of `summary --json` must carry globalRank, its
# source, host and pid of the process that initialised that (comm, rank),
# the same GPU for all of its communicators. Then, with globalRank removed
# from the process records (a trace from a process without a launcher
# variable), the rank comes from the largest communicator ("~g" in text);
# with two GPUs per process, the rows of the largest communicator name
# their GPU, and the others through the device (ncclemu's emulated CUDA
# driver), or not at all without devices.
# usage: summary_identity.sh NCCLEMU PLUGIN CCLSCOPE
set -euo pipefail
emu=$1 plugin=$2 cs=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-sumid-XXXXXX")
trap 'rm -rf "$work"' EXIT
CCLSCOPE_DIR="$work/t" CCLSCOPE_SUMMARY=off CCLSCOPE_MASK=all "$emu" --plugin "$plugin" \
  --scenario split --nodes 2 --ranks-per-node 2 --ranks-per-process 1 \
  --pace none --quiet
check() { # DIR LAUNCHER-SOURCE ("" when none) MIN-ROWS-NAMED
  "$cs" summary --json "$1" >"$work/s.json"
  python3 - "$1" "$work/s.json" "$2" "$3" <<'PY'
import json, pathlib, sys
tdir, sjson, launcher = sys.argv[1:4]
# what the traces say: (commId, rank) -> (host, pid, expected globalRank, source)
want = {}
for f in pathlib.Path(tdir).glob("*.jsonl"):
    recs = [json.loads(l) for l in f.read_text().splitlines() if l.strip()]
    proc = recs[0]
    inits = [r for r in recs if r.get("func") == "ProfilerInit"]
    big = max(inits, key=lambda r: r["nranks"])
    gpus = len({r["rank"] for r in inits if r["commId"] == big["commId"]})
    # several GPUs: a device's rank in the largest communicator it is in
    by_device = {}
    for r in sorted(inits, key=lambda r: -r["nranks"]):
        if r.get("device") is not None:
            by_device.setdefault(r["device"], r["rank"])
    for r in inits:
        if gpus == 1 and launcher:       # one GPU: the launcher's rank
            g, src = proc["globalRank"], launcher
        elif gpus == 1:                  # one GPU, no launcher: largest comm
            g, src = big["rank"], "largest-communicator"
        elif r["commId"] == big["commId"]:  # several GPUs: the largest
            g, src = r["rank"], "largest-communicator"  # comm names them,
        elif r.get("device") is not None:   # and their devices the others
            g, src = by_device[r["device"]], "largest-communicator"
        else:
            g, src = None, None
        want[(r["commId"], r["rank"])] = (proc["hostname"], proc["pid"], g, src,
                                         r.get("device"))
rows = json.load(open(sjson))["stragglers"]["ranks"]
assert len(rows) >= 4, f"only {len(rows)} straggler rows"
comms, named = set(), 0
for row in rows:
    key = (row["commId"], row["rank"])
    assert key in want, f"row {key} names no initialised (comm, rank)"
    host, pid, g, src, dev = want[key]
    assert row["host"] == host and row["pid"] == pid, (key, row, host, pid)
    assert row["globalRank"] == g, (key, row["globalRank"], g)
    assert row["globalRankSource"] == src, (key, row["globalRankSource"], src)
    assert "device" in row and row["device"] == dev, (row, dev)
    comms.add(row["commId"])
    named += g is not None
assert len(comms) >= 2, f"rows of one communicator only: {comms}"
assert named >= int(sys.argv[4]), f"only {named} rows named a GPU"
# the GPU table: the rows of a named GPU summed, most wait caused first
# (then most times last, then most own wait)
gpus = json.load(open(sjson))["stragglers"]["gpus"]
order = [(g["waitCausedUs"], g["timesLast"], g["ownWaitUs"]) for g in gpus]
assert order == sorted(order, reverse=True), order
for g in gpus:
    if g["globalRank"] is None:
        continue
    mine = [r for r in rows if (r["globalRank"], r["pid"]) == (g["globalRank"], g["pid"])]
    assert g["comms"] == len(mine), (g, len(mine))
    assert g["instances"] == sum(r["instances"] for r in mine), g
    assert g["timesLast"] == sum(r["timesLast"] for r in mine), g
    # every wait when last: caused (own + inherited) and startup skew
    total = sum(r["meanWaitUs"] * r["timesLast"] for r in mine)
    whole = g["waitCausedUs"] + g["unattributedWaitUs"]
    assert abs(whole - total) <= 0.003 * max(1, len(mine)) + 1e-6 * total, (g, total)
    own = sum(r["ownWaitUs"] for r in mine)
    assert abs(g["ownWaitUs"] - own) <= 0.001 * len(mine) + 1e-6 * own, (g, own)
    assert 0 <= g["ownWaitUs"] <= g["waitCausedUs"] + 0.001, g
    assert abs(g["ownWaitUs"] + g["inheritedWaitUs"] - g["waitCausedUs"]) <= 0.002, g
    assert g["inheritedWaitUs"] >= -0.001 and g["unattributedWaitUs"] >= 0, g
    assert g["host"] == mine[0]["host"] and g["device"] == mine[0]["device"], g
print(f"summary GPUs: {len(gpus)} rows, sums match the (comm, rank) rows")
print(f"summary identity: {len(rows)} rows over {len(comms)} communicators, {named} named")
PY
}
check "$work/t" RANK 12
"$cs" summary "$work/t" >"$work/s.txt"
grep -Eq '^ +[^ ]+ +[0-9]+ +g[0-9]+ emu-node[01]:[0-9]+ ' "$work/s.txt" ||
  { echo "FAIL: the text table has no 'gN host:pid' column"; cat "$work/s.txt"; exit 1; }
# the viewer's files carry the same global rank (its process headers say
# "rank N · pid …")
"$cs" view -o "$work/v.html" "$work/t" >/dev/null 2>&1
python3 - "$work/t" "$work/v.html" <<'PY'
import json, pathlib, re, sys
want = {}
for f in pathlib.Path(sys.argv[1]).glob("*.jsonl"):
    proc = json.loads(f.open().readline())
    want[proc["pid"]] = proc["globalRank"]
got = {int(p): int(g) for p, g in re.findall(r'"pid":(\d+),"globalRank":(\d+)', open(sys.argv[2]).read())}
assert got == want, (got, want)
print(f"view: globalRank of {len(got)} files")
PY
mkdir "$work/nolauncher"
for f in "$work"/t/*.jsonl; do
  sed -e '1s/"globalRank":[0-9]*,"globalRankSource":"RANK",//' "$f" >"$work/nolauncher/$(basename "$f")"
done
if grep -q '"globalRankSource"' "$work"/nolauncher/*.jsonl; then
  echo "FAIL: could not remove globalRank from the process records"; exit 1
fi
check "$work/nolauncher" "" 12
"$cs" summary "$work/nolauncher" >"$work/s.txt"
grep -Eq ' ~g[0-9]+ emu-node' "$work/s.txt" ||
  { echo "FAIL: the text table does not mark a fallback rank with ~"; cat "$work/s.txt"; exit 1; }
# two GPUs per process (the split scenario's default): the launcher's rank
# names the process, not a GPU; the world communicator's rank names each
CCLSCOPE_DIR="$work/t2" CCLSCOPE_SUMMARY=off CCLSCOPE_MASK=all "$emu" --plugin "$plugin" \
  --scenario split --nodes 2 --ranks-per-node 2 --ranks-per-process 2 \
  --pace none --quiet
check "$work/t2" RANK 12
# ... and without devices (--no-devices) only the largest communicator's
# rows can name their GPU
CCLSCOPE_DIR="$work/t3" CCLSCOPE_SUMMARY=off CCLSCOPE_MASK=all "$emu" --plugin "$plugin" \
  --scenario split --nodes 2 --ranks-per-node 2 --ranks-per-process 2 \
  --pace none --quiet --no-devices
check "$work/t3" RANK 4
echo "ok"
