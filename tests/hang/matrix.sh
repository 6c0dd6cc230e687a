#!/usr/bin/env bash
# tests/hang/matrix.sh — how often `cclscope hang` names the right culprit:
# ncclemu's hang scenario for every hang class x topology x hung rank x
# mask, each judged from `cclscope hang --json`:
#   right         the first culprit is the hung rank (or, when the verdict
#                 names a process, that process drives the hung rank)
#   cannot tell   confidence none
#   wrong         another rank or process, with the confidence said
# Prints one line per run and a Markdown table (docs/hang.md keeps the last
# one measured). Exit 1 when a wrong culprit was named with "high".
# usage: tests/hang/matrix.sh BUILD_DIR [--classes "gpu never-called"]
#        [--masks "default default,proxystep"] [--duration S]
set -euo pipefail
build=$(cd "$1" && pwd)
shift
classes="gpu never-called network proxy" masks="default default,proxystep" duration=2
while [ $# -gt 0 ]; do
  case $1 in
  --classes) classes=$2; shift 2 ;;
  --masks) masks=$2; shift 2 ;;
  --duration) duration=$2; shift 2 ;;
  *) echo "matrix.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
emu=$build/ncclemu plugin=$build/libnccl-profiler-cclscope.so cli=$build/cclscope
for f in "$emu" "$plugin" "$cli"; do
  [ -e "$f" ] || { echo "matrix.sh: $f is missing (build first)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-hang-matrix-XXXXXX")
trap 'rm -rf "$work"' EXIT
# topology label, ncclemu options, hung ranks to try
topologies=(
  "1x8|--nodes 1 --ranks-per-node 8|0 3 7"
  "2x4|--nodes 2 --ranks-per-node 4|0 5 7"
  "4x2|--nodes 4 --ranks-per-node 2|0 3 6"
  "8x1|--nodes 8 --ranks-per-node 1|0 5 7"
  "2x8p2|--nodes 2 --ranks-per-node 8 --ranks-per-process 2|0 9 15"
)
results=$work/results
: >"$results"
for cls in $classes; do
  for mask in $masks; do
    for t in "${topologies[@]}"; do
      IFS='|' read -r label opts ranks <<<"$t"
      for r in $ranks; do
        dir=$work/run
        rm -rf "$dir"
        # shellcheck disable=SC2086
        CCLSCOPE_DIR=$dir CCLSCOPE_MASK=$mask CCLSCOPE_HANG_TIMEOUT=0.5 \
          CCLSCOPE_JOB_ID=emu CCLSCOPE_SUMMARY=off NCCL_DEBUG=WARN \
          "$emu" --plugin "$plugin" --quiet --max-callback-ms 5000 \
          --scenario hang --duration "$duration" --net-lat-us 0 --bw-gbps 1e6 \
          $opts --hang-rank "$r" --hang-class "$cls" >"$work/emu.log" 2>&1 || true
        "$cli" -q hang --json "$dir" >"$work/hang.json" 2>/dev/null || true
        verdict=$(python3 - "$work/hang.json" "$r" <<'PY'
import json, sys
want = int(sys.argv[2])
try:
    doc = json.load(open(sys.argv[1]))
except Exception:
    print("cannot-tell none no-report"); sys.exit()
groups = [g for g in doc.get("groups", []) if g.get("commName") == "world"] or doc.get("groups", [])
if not groups:
    print("cannot-tell none no-hang-reported"); sys.exit()
g = groups[0]
conf = g.get("confidence", "none")
culprits = g.get("culprits", [])
if conf == "none" or not culprits:
    print("cannot-tell none -"); sys.exit()
first = culprits[0]
if g.get("culpritIsProcess"):
    named = [c["rank"] for c in culprits if c.get("pid") == first.get("pid")]
    ok = want in named
    print(("right" if ok else "wrong"), conf, "process:" + ",".join(map(str, named)))
else:
    print(("right" if first["rank"] == want else "wrong"), conf, "rank:%d" % first["rank"])
PY
)
        echo "$cls|$mask|$label|$r|$verdict" | tee -a "$results"
      done
    done
  done
done
echo
python3 - "$results" <<'PY'
import sys, collections
cells = collections.OrderedDict()
wrong_high = 0
for line in open(sys.argv[1]):
    cls, mask, topo, rank, verdict = line.strip().split("|")
    outcome, conf, _ = verdict.split(" ", 2)
    c = cells.setdefault((cls, mask, topo), collections.Counter())
    c[outcome] += 1
    c["n"] += 1
    if outcome == "wrong" and conf == "high":
        wrong_high += 1
        c["wrong-high"] += 1
print("| class | mask | topology (nodes x GPUs) | right | cannot tell | wrong (high) |")
print("|---|---|---|---|---|---|")
total = collections.Counter()
for (cls, mask, topo), c in cells.items():
    print(f"| {cls} | `{mask}` | {topo} | {c['right']} of {c['n']} | {c['cannot-tell']} | {c['wrong']} ({c['wrong-high']}) |")
    total.update(c)
print(f"\n{total['right']} of {total['n']} right, {total['cannot-tell']} cannot tell, "
      f"{total['wrong']} wrong ({wrong_high} with high confidence)")
sys.exit(1 if wrong_high else 0)
PY
