#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/straggler_matrix.sh — the straggler verdict of `cclscope summary`
# and its kind (docs/cli.md, Stragglers: the verdict, what kind) on emulated
# runs with and without a planted straggler: ncclemu's multi-node and mixed
# scenarios on 4x4 and 2x4 GPUs, NCCL 2.31 with KernelPhase, each cell run
# once per kind of plant (R changes from run to run, the first and last
# ranks included):
#   late-host  --delay-rank R --delay-us X (64 KiB messages): the host of
#              GPU R calls every collective X us late;
#   slow-gpu   --slow-rank R --slow-factor 2 --lat-us 50: GPU R's own work
#              (50 us a collective) takes twice as long;
#   slow-link  --slow-link A:B (of every communicator), its bytes moving 4
#              times slower, the network modelled and ProxySteps recorded.
#              multi-node: an inter-node link of the world ring, with
#              --net-lat-us 20 and messages of 64K, 1M and 4M, for the
#              fits. mixed: its own message sizes (one per communicator,
#              which no fit can be made from: the per-step test finds the
#              link) and the emulator's 2 us latency; A:B an inter-node
#              link of the pipeline (0:1, 1:0) or, on 4x4, of the data-
#              parallel ring (1:2, 3:0), changing from run to run;
#   none       no plant (64 KiB messages).
# It asserts the rates the verdict is calibrated for:
#   - each plant: the planted GPU (slow link: the planted link) named, with
#     the planted kind, in >= 95 % of its runs,
#   - no plant: "no GPU stands out" in >= 90 % of the runs,
#   - never a wrong GPU or link named with high confidence.
# Each node is one process with a thread per GPU (--ranks-per-process and
# --threads = GPUs per node), so the plant delays its GPU's calls only, and
# 16 GPUs are 4 processes, not 16, on a small machine. Apart from the slow
# link's runs the network is modelled as free (--net-lat-us 0 --bw-gbps
# 1e6): with the model on, the ranks whose proxies move the inter-node
# steps really are late on a busy machine: their proxies sleep to each
# step's modelled time and wake late, their hosts wait for them after each
# step and call the next collective late, and the arrival tests rightly
# name one of them, which is not what a run without a plant is meant to be
# (docs/cli.md has the tally). The slow link's runs are judged on the link
# and its kind, which the network measurements decide.
#
# The plants are real sleeps, and a loaded machine deschedules processes
# for longer: the rates are a wall-clock story, though nothing here is
# timed (only how the verdict reads the records of each run). A matrix that
# misses a rate is run again with other seeds, at most --attempts times in
# all (default 3, each said), never judged from one unlucky pass (about 1
# run in 100 misses on a loaded 2-core machine).
#
# usage: straggler_matrix.sh EMU PLUGIN CCLSCOPE [--repeats N] [--attempts N]
#          [--delay-us X] [--net model|free] [--sizes LIST] [--kinds LIST]
#          [--report-only] [--keep DIR]
#   --repeats N   runs of each kind per cell (default 2: 32 runs a pass)
#   --sizes LIST  message sizes of late-host and none (ncclemu --sizes;
#                 default 64K)
#   --kinds LIST  the plants to run (default late-host,slow-gpu,slow-link,
#                 none)
#   --report-only print the tally, assert nothing (calibration)
set -euo pipefail
emu=$1 plugin=$2 cs=$3
shift 3
repeats=2 attempts=3 delay=200 net=free assert=1 keep= sizes=64K
kinds=late-host,slow-gpu,slow-link,none
while [ $# -gt 0 ]; do
  case $1 in
  --repeats) repeats=$2; shift 2 ;;
  --attempts) attempts=$2; shift 2 ;;
  --delay-us) delay=$2; shift 2 ;;
  --net) net=$2; shift 2 ;;
  --sizes) sizes=$2; shift 2 ;;
  --kinds) kinds=$2; shift 2 ;;
  --report-only) assert=0; shift ;;
  --keep) keep=$2; shift 2 ;;
  *) echo "straggler_matrix.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-strag-XXXXXX")
trap 'rm -rf "$work"' EXIT
net_opts=(--net-lat-us 0 --bw-gbps 1e6)
[ "$net" = model ] && net_opts=()
# cells: scenario nodes ranks-per-node ops (a few seconds each at most)
cells=("multi-node 4 4 200" "multi-node 2 4 200" "mixed 4 4 12" "mixed 2 4 20")
# the planted rank of repeat k
plants16=(13 6 0 15 3 9 7 10) plants8=(5 2 7 0 3 6 1 4)
# the slow link of repeat k in the mixed scenario (tp 2, pp 2; ranks of
# every communicator): 4x4: the pipeline's 0:1 and 1:0 cross nodes, and
# the data-parallel ring (4 ranks, 2 a node) crosses at 1:2 and 3:0; 2x4:
# the pipeline only (its data-parallel pairs share a node)
mixed_links16=(1:2 0:1 3:0 1:0) mixed_links8=(0:1 1:0)

# One run: its verdict's outcome (right, wrong, none), kind, confidence and
# the numbers behind it, on one line. want: the planted GPU, or A:B for a
# slow link, or -1.
verdict_of() { # json kind want
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["stragglers"]["verdict"]
kind, want = sys.argv[2], sys.argv[3]
want_kind = {"late-host": "late host", "slow-gpu": "slow GPU",
             "slow-link": "slow link", "none": "none"}[kind]
link = v.get("link") or {}
if v["verdict"] == "gpu":
    named = str(v["gpu"]["globalRank"])
elif v["verdict"] == "link":
    named = f'{link.get("from")}:{link.get("to")}'
else:
    named = None
outcome = ("none" if named is None else
           "right" if named == want and v["kind"] == want_kind else "wrong")
t = v["tested"] or {}
c = v.get("compute") or {}
print(outcome, v["confidence"], "-" if named is None else named,
      v["kind"].replace(" ", "-"), t.get("testedLast"), t.get("chanceLast"),
      v["log10PLast"], c.get("finishedLast"), c.get("chanceFinishedLast"),
      c.get("log10PFinishedLast"), link.get("bandwidthGBs"), link.get("medianGBs"))
PY
}

# The emulator's arguments of one run: the cell's topology, then the
# plant of `kind` (want: its GPU or link) on top of the base of its kind.
plant_args() { # kind want scenario
  case $1 in
  late-host) echo --sizes "$sizes" "${net_opts[@]}" --delay-rank "$2" --delay-us "$delay" ;;
  slow-gpu) echo --sizes "$sizes" "${net_opts[@]}" --lat-us 50 --slow-rank "$2" --slow-factor 2 ;;
  slow-link)
    if [ "$3" = multi-node ]; then
      echo --sizes 64K,1M,4M --net-lat-us 20 --slow-link "$2"
    else
      echo --slow-link "$2"
    fi ;;
  none) echo --sizes "$sizes" "${net_opts[@]}" ;;
  esac
}

# One pass over the matrix (seeds from $1); the tally in $work/tally.
pass() {
  local base=$1 run=0 cell scenario nodes rpn ops k kind want seed dir line
  local -a kind_list
  IFS=, read -r -a kind_list <<<"$kinds"
  : >"$work/tally"
  for cell in "${cells[@]}"; do
    read -r scenario nodes rpn ops <<<"$cell"
    local n=$((nodes * rpn))
    for ((k = 0; k < repeats; k++)); do
      for kind in "${kind_list[@]}"; do
        run=$((run + 1))
        seed=$((base + run * 7))
        dir=$work/run$run
        want=-1
        if [ "$n" -eq 16 ]; then want=${plants16[k % 8]}; else want=${plants8[k % 8]}; fi
        local mask=default run_ops=$ops
        case $kind in
        none) want=-1 ;;
        slow-link)
          mask=default,proxystep
          if [ "$scenario" = multi-node ]; then
            # an inter-node link of the world ring: rank j*rpn-1 -> j*rpn
            local j=$((1 + k % nodes))
            want=$((j * rpn - 1)):$(((j * rpn) % n))
            run_ops=32
          elif [ "$n" -eq 16 ]; then
            want=${mixed_links16[k % 4]}
          else
            want=${mixed_links8[k % 2]}
          fi ;;
        esac
        local args=(--scenario "$scenario" --nodes "$nodes" --ranks-per-node "$rpn"
          --ranks-per-process "$rpn" --threads "$rpn" --ops "$run_ops"
          --seed "$seed" --nccl-version 2.31)
        # shellcheck disable=SC2207
        args+=($(plant_args "$kind" "$want" "$scenario"))
        rm -rf "$dir"
        CCLSCOPE_DIR=$dir CCLSCOPE_JOB_ID=strag CCLSCOPE_SUMMARY=off CCLSCOPE_MASK=$mask \
          "$emu" --plugin "$plugin" --quiet --max-callback-ms 5000 "${args[@]}" ||
          { echo "FAIL: ncclemu ${args[*]} failed"; exit 1; }
        "$cs" -q summary --json "$dir" >"$dir.json" ||
          { echo "FAIL: cclscope summary --json $dir failed"; exit 1; }
        line=$(verdict_of "$dir.json" "$kind" "$want")
        read -r outcome conf named vkind last clast plast fin cfin pfin bw mbw <<<"$line"
        echo "$kind $outcome $conf" >>"$work/tally"
        printf '%-10s %dx%d %-9s plant=%-5s seed=%-4d -> %-5s %-6s named=%-5s kind=%-9s last %s (%s) log10p %s; finished last %s (%s) log10p %s; link %s of %s GB/s\n' \
          "$scenario" "$nodes" "$rpn" "$kind" "$([ "$want" != -1 ] && echo "$want" || echo -)" \
          "$seed" "$outcome" "$conf" "$named" "$vkind" "$last" "$clast" "$plast" \
          "$fin" "$cfin" "$pfin" "$bw" "$mbw"
        if [ -n "$keep" ]; then mkdir -p "$keep" && cp -r "$dir" "$dir.json" "$keep/"; fi
        rm -rf "$dir" "$dir.json"
      done
    done
  done
}

# The rates of the last pass; exit status 1 when one is missed.
judge() {
  python3 - "$work/tally" "$delay" <<'PY'
import collections, sys
rows = [l.split() for l in open(sys.argv[1])]
c = collections.Counter((p, o) for p, o, _ in rows)
cc = collections.Counter((p, o, k) for p, o, k in rows)
ok = True
for kind in ("late-host", "slow-gpu", "slow-link"):
    runs = sum(v for (p, _), v in c.items() if p == kind)
    if not runs:
        continue
    right = c[(kind, "right")]
    plant = f"{kind} ({sys.argv[2]} us)" if kind == "late-host" else kind
    print(f"{plant}: {right}/{runs} right GPU or link and kind, {c[(kind, 'none')]} none, "
          f"{c[(kind, 'wrong')]} wrong; confidence of the right ones: "
          + ", ".join(f"{k} {cc[(kind, 'right', k)]}" for k in ("high", "medium", "low")))
    if right < 0.95 * runs:
        print(f"miss: {kind}: the planted one named with its kind in {right} of {runs} runs (< 95 %)")
        ok = False
clean = sum(v for (p, _), v in c.items() if p == "none")
if clean:
    none = c[("none", "none")]
    print(f"no plant: {none}/{clean} none, {c[('none', 'wrong')]} named; "
          + ", ".join(f"named {k} {cc[('none', 'wrong', k)]}" for k in ("high", "medium", "low")))
    if none < 0.9 * clean:
        print(f"miss: 'no GPU stands out' in {none} of {clean} runs without a plant (< 90 %)")
        ok = False
wrong_high = sum(v for (p, o, k), v in cc.items() if o == "wrong" and k == "high")
print(f"wrong GPU or link with high confidence: {wrong_high}")
if wrong_high:
    print(f"miss: a wrong GPU or link named with high confidence in {wrong_high} runs")
    ok = False
sys.exit(0 if ok else 1)
PY
}

for ((attempt = 1; attempt <= attempts; attempt++)); do
  echo "# pass $attempt: ${#cells[@]} cells x $repeats x ($kinds), late host $delay us, network $net"
  pass $((attempt * 1000))
  if judge; then
    echo "PASS (pass $attempt)"
    exit 0
  fi
  [ $assert -eq 0 ] && exit 0
  [ $attempt -lt $attempts ] && echo "note: pass $attempt missed a rate (a busy machine?); running the matrix again with other seeds"
done
echo "FAIL: the verdict missed a rate in $attempts passes"
exit 1
