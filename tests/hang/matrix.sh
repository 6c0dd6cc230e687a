#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/hang/matrix.sh — how often `cclscope hang` names the right culprit
# and the right class: ncclemu's hang scenario for every hang class x
# topology x hung rank x mask, each judged from `cclscope hang --json`:
#   right         the first culprit is the hung rank (or, when the verdict
#                 names a process, that process drives the hung rank) and
#                 the verdict's hangClass is the class that was emulated
#   cannot tell   confidence none
#   culprit only  the right culprit, class unknown: the evidence names the
#                 rank but not what stopped in it (counted apart)
#   wrong         another rank or process, with the confidence said
#   wrong class   the right culprit, another class (counted apart)
# A class that cannot occur in a topology (network or proxy on one node:
# no network transfers) is skipped and said so; a class this ncclemu does
# not emulate is skipped too. The mismatch class takes turns over its
# kinds (count, datatype, func) from one run to the next.
# Beyond the documented topologies: PXN (`pxn`: sends run in a node-mate's
# proxy), and fewer channels than GPUs per node (`c1`: one channel; `s64K`:
# a 64 KiB message, which uses fewer channels), where a network-class
# stall of a rank without a link to another node stops a link inside its
# node, which NCCL does not profile.
# Prints one line per run and a Markdown table (docs/hang.md keeps the last
# one measured). Exit 1 when a wrong culprit or a wrong class was named
# with "high", or when a cell given with --require is not right in every
# run.
# usage: tests/hang/matrix.sh BUILD_DIR [--classes "gpu never-called mismatch"]
#        [--masks "default default,proxystep"] [--duration S] [--timeout S]
#        [--jobs N] [--cell CLASS/MASK/TOPO[/RANK]]... [--require CLASS/MASK/TOPO]...
#        [--require-culprit CLASS/MASK/TOPO]... [--require-honest CLASS/MASK/TOPO]...
#   --cell     run only these cells (RANK: default the topology's middle one)
#   --require  glob patterns (e.g. 'mismatch/*/*') of cells that must be right
#   --require-culprit  ... that must name the right culprit (any class)
#   --require-honest   ... that must be right or say it cannot tell (the
#              culprit, or its class), never wrong at any confidence
set -euo pipefail
build=$(cd "$1" && pwd)
shift
classes="gpu never-called mismatch network proxy" masks="default default,proxystep"
duration=2 timeout=0.5 jobs=1
cells=() required=()
while [ $# -gt 0 ]; do
  case $1 in
  --classes) classes=$2; shift 2 ;;
  --masks) masks=$2; shift 2 ;;
  --duration) duration=$2; shift 2 ;;
  --timeout) timeout=$2; shift 2 ;;
  --jobs) jobs=$2; shift 2 ;;
  --cell) cells+=("$2"); shift 2 ;;
  --require) required+=("right:$2"); shift 2 ;;
  --require-culprit) required+=("culprit:$2"); shift 2 ;;
  --require-honest) required+=("honest:$2"); shift 2 ;;
  *) echo "matrix.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
emu=$build/ncclemu plugin=$build/libnccl-profiler-cclscope.so cli=$build/cclscope
for f in "$emu" "$plugin" "$cli"; do
  [ -e "$f" ] || { echo "matrix.sh: $f is missing (build first)" >&2; exit 2; }
done
# The interpreter itself, once: a version manager's shim (pyenv) costs
# seconds per start on a busy machine.
py=$(python3 -c 'import sys; print(sys.executable)')
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-hang-matrix-XXXXXX")
trap 'rm -rf "$work"' EXIT
# topology label, ncclemu options, hung ranks to try (first, middle, last)
topologies=(
  "1x8|--nodes 1 --ranks-per-node 8|0 3 7"
  "2x4|--nodes 2 --ranks-per-node 4|0 5 7"
  "4x2|--nodes 4 --ranks-per-node 2|0 3 6"
  "8x1|--nodes 8 --ranks-per-node 1|0 5 7"
  "2x8p2|--nodes 2 --ranks-per-node 8 --ranks-per-process 2|0 9 15"
  "2x4pxn|--nodes 2 --ranks-per-node 4 --pxn|0 5 7"
  "2x8p2pxn|--nodes 2 --ranks-per-node 8 --ranks-per-process 2 --pxn|0 9 15"
  "2x4c1|--nodes 2 --ranks-per-node 4 --channels 1|0 5 7"
  "2x4s64K|--nodes 2 --ranks-per-node 4 --sizes 64K|0 5 7"
  "2x8p2c1|--nodes 2 --ranks-per-node 8 --ranks-per-process 2 --channels 1|0 9 15"
)
mismatch_kinds=(count datatype func)
mismatch_runs=0 # the kinds take turns over the mismatch runs

# Why CLASS cannot occur in topology LABEL ("" when it can).
cannot_occur() {
  case $1/$2 in
  network/1x* | proxy/1x*) echo "one node: no network transfers" ;;
  *) echo "" ;;
  esac
}

# Whether this ncclemu emulates CLASS (it rejects an unknown one).
emulated() {
  "$emu" --hang-class "$1" --help >/dev/null 2>&1
}

topology_of() { # label -> "opts|ranks"
  for t in "${topologies[@]}"; do
    IFS='|' read -r label opts ranks <<<"$t"
    [ "$label" = "$1" ] && { echo "$opts|$ranks"; return 0; }
  done
  return 1
}

# The runs: class|mask|topology|rank|mismatch kind
runs=$work/runs
: >"$runs"
add_cell() { # class mask label [rank|all]
  local cls=$1 mask=$2 label=$3 rank=${4:-} t opts ranks kind=
  t=$(topology_of "$label") || { echo "matrix.sh: unknown topology $label" >&2; exit 2; }
  IFS='|' read -r opts ranks <<<"$t"
  if [ -z "$rank" ]; then # a --cell without a rank: the middle one
    read -r -a all <<<"$ranks"
    ranks=${all[1]}
  elif [ "$rank" != all ]; then
    ranks=$rank
  fi
  for r in $ranks; do
    kind=-
    if [ "$cls" = mismatch ]; then
      kind=${mismatch_kinds[$((mismatch_runs % 3))]}
      mismatch_runs=$((mismatch_runs + 1))
    fi
    echo "$cls|$mask|$label|$r|$kind" >>"$runs"
  done
}
if [ ${#cells[@]} -gt 0 ]; then
  for c in "${cells[@]}"; do
    IFS='/' read -r cls mask label rank <<<"$c"
    add_cell "$cls" "$mask" "$label" "$rank"
  done
else
  for cls in $classes; do
    for mask in $masks; do
      for t in "${topologies[@]}"; do
        add_cell "$cls" "$mask" "${t%%|*}" all
      done
    done
  done
fi

# One run: ncclemu, then the verdict. Writes "$cls|$mask|$label|$r|VERDICT".
run_one() { # index line
  local n=$1 cls mask label r kind t opts ranks dir why
  IFS='|' read -r cls mask label r kind <<<"$2"
  why=$(cannot_occur "$cls" "$label")
  if [ -n "$why" ]; then
    echo "$cls|$mask|$label|$r|skipped none $why" >"$work/result.$n"
    return
  fi
  if ! emulated "$cls"; then
    echo "$cls|$mask|$label|$r|skipped none not emulated by this ncclemu" >"$work/result.$n"
    return
  fi
  t=$(topology_of "$label")
  opts=${t%%|*}
  local extra=()
  [ "$cls" = mismatch ] && extra=(--mismatch "$kind")
  dir=$work/run.$n
  # shellcheck disable=SC2086
  CCLSCOPE_DIR=$dir CCLSCOPE_MASK=$mask CCLSCOPE_HANG_TIMEOUT=$timeout \
    CCLSCOPE_JOB_ID=emu CCLSCOPE_SUMMARY=off NCCL_DEBUG=WARN \
    "$emu" --plugin "$plugin" --quiet --max-callback-ms 5000 \
    --scenario hang --duration "$duration" --net-lat-us 0 --bw-gbps 1e6 \
    $opts --hang-rank "$r" --hang-class "$cls" "${extra[@]}" \
    >"$dir.emu.log" 2>&1 || true
  "$cli" -q hang --json "$dir" >"$dir.hang.json" 2>/dev/null || true
  local verdict
  verdict=$("$py" - "$dir.hang.json" "$r" "$cls" <<'PY'
import json, sys
want, want_class = int(sys.argv[2]), sys.argv[3]
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
    who = "process:" + ",".join(map(str, named))
else:
    ok = first["rank"] == want
    who = "rank:%d" % first["rank"]
got = g.get("hangClass", "unknown")
if not ok:
    outcome = "wrong"
elif got == want_class:
    outcome = "right"
else:
    outcome = "culprit-only" if got == "unknown" else "wrong-class"
print(outcome, conf, who, "class:" + got)
PY
)
  [ "$cls" = mismatch ] && verdict="$verdict --mismatch:$kind"
  echo "$cls|$mask|$label|$r|$verdict" >"$work/result.$n"
}

n=0
while IFS= read -r line; do
  n=$((n + 1))
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  run_one "$n" "$line" &
done <"$runs"
wait
results=$work/results
: >"$results"
i=0
while IFS= read -r line; do
  i=$((i + 1))
  if [ -s "$work/result.$i" ]; then
    tee -a "$results" <"$work/result.$i"
  else # the run itself failed: count it against the verdict
    IFS='|' read -r cls mask label r kind <<<"$line"
    echo "$cls|$mask|$label|$r|cannot-tell none run-failed" | tee -a "$results"
  fi
done <"$runs"
echo
"$py" - "$results" "${required[@]}" <<'PY'
import sys, collections, fnmatch
cells = collections.OrderedDict()
skipped_why = {}
wrong_high = 0
for line in open(sys.argv[1]):
    cls, mask, topo, rank, verdict = line.strip().split("|")
    outcome, conf, why = (verdict.split(" ", 2) + ["", ""])[:3]
    c = cells.setdefault((cls, mask, topo), collections.Counter())
    if outcome == "skipped":
        c["skipped"] += 1
        skipped_why[(cls, mask, topo)] = why
        continue
    c[outcome] += 1
    c["n"] += 1
    if outcome in ("wrong", "wrong-class") and conf == "high":
        wrong_high += 1
        c[outcome + "-high"] += 1
print("| class | mask | topology (nodes x GPUs) | right | cannot tell | right culprit, class cannot tell | wrong culprit (high) | right culprit, wrong class (high) |")
print("|---|---|---|---|---|---|---|---|")
total = collections.Counter()
for (cls, mask, topo), c in cells.items():
    if c["n"] == 0:
        why = skipped_why.get((cls, mask, topo), "")
        print(f"| {cls} | `{mask}` | {topo} | skipped: {why} | | | | |")
        total["skipped"] += c["skipped"]
        continue
    print(f"| {cls} | `{mask}` | {topo} | {c['right']} of {c['n']} | {c['cannot-tell']} | "
          f"{c['culprit-only']} | "
          f"{c['wrong']} ({c['wrong-high']}) | {c['wrong-class']} ({c['wrong-class-high']}) |")
    total.update(c)
print(f"\n{total['right']} of {total['n']} right, {total['cannot-tell']} cannot tell, "
      f"{total['culprit-only']} right culprit with the class left open, "
      f"{total['wrong']} wrong culprit, {total['wrong-class']} right culprit with a wrong class "
      f"({wrong_high} of them with high confidence); {total['skipped']} runs skipped")
failed = wrong_high > 0
for req in sys.argv[2:]:
    what, pattern = req.split(":", 1)
    matched = [(k, c) for k, c in cells.items() if fnmatch.fnmatch("/".join(k), pattern) and c["n"]]
    if not matched:
        print(f"REQUIRED {pattern}: no cell ran"); failed = True
    for k, c in matched:
        if what == "culprit":
            good, said = c["right"] + c["wrong-class"] + c["culprit-only"], "with the right culprit"
        elif what == "honest":
            good, said = c["right"] + c["cannot-tell"] + c["culprit-only"], "right or cannot tell"
        else:
            good, said = c["right"], "right"
        if good != c["n"]:
            print(f"REQUIRED {'/'.join(k)}: {good} of {c['n']} {said}")
            failed = True
if wrong_high:
    print(f"FAIL: {wrong_high} verdicts with high confidence are wrong")
sys.exit(1 if failed else 0)
PY
