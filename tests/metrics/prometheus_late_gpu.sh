#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/metrics/prometheus_late_gpu.sh — the shipped late-GPU rules
# (packaging/prometheus/cclscope-rules.yml) in a real Prometheus server
# (Debian's package) that scrapes an emulated job's /metrics endpoints:
#   1. a job whose global rank 2 arrives 500 us late at every collective
#      (ncclemu --delay-rank): CclscopeLateGPU fires, for that rank only,
#      naming its global rank and its endpoint;
#   2. the same job without the plant: once every rank's lateness has been
#      evaluated for longer than the alert's `for`, nothing has fired.
# The evidence is the whole collective span before NCCL 2.31 and the
# initial_sync wait from 2.31 on (NCCL_VERSION). Verdicts come from the
# alert's state, never from a timing. To keep the test short, the rules'
# windows are shortened ([2m] -> [10s], for 5m -> 10s); everything else is
# the shipped file (its thresholds are unit-tested by
# tests/metrics/cclscope-rules.test.yml).
# usage: prometheus_late_gpu.sh NCCLEMU PLUGIN RULES NCCL_VERSION
set -euo pipefail
emu=$1 plugin=$2 rules=$3 nccl_version=$4
for tool in prometheus curl python3; do
  command -v "$tool" >/dev/null ||
    { echo "FAIL: $tool is not installed (scripts/install-deps.sh installs it)"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-late-XXXXXX")
prom_pid="" job_pid=""
set -m # each background job gets its own process group: a job is ended whole
stop_job() {
  if [ -n "$job_pid" ]; then
    kill -TERM -- "-$job_pid" 2>/dev/null || true
    wait "$job_pid" 2>/dev/null || true
    # its workers too (a sanitized process takes a while to die), 20 s at most
    for _ in $(seq 80); do
      kill -0 -- "-$job_pid" 2>/dev/null || break
      sleep 0.25
    done
    job_pid=""
  fi
}
cleanup() {
  stop_job
  if [ -n "$prom_pid" ]; then kill "$prom_pid" 2>/dev/null || true; wait "$prom_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

evidence=all
case "$nccl_version" in 2.31*) evidence=initial_sync ;; esac
LATE=2 # the planted late GPU's global rank (one GPU per process: its worker)

# The shipped rules with short windows; the substitutions must all happen.
sed -e 's/\[2m\]/[10s]/g' -e 's/^\(  *\)for: 5m$/\1for: 10s/' "$rules" >"$work/rules.yml"
grep -q '\[2m\]' "$work/rules.yml" && { echo "FAIL: a [2m] window was left in the rules"; exit 1; }
grep -q '^ *for: 10s$' "$work/rules.yml" || { echo "FAIL: the alert's 'for: 5m' was not found in $rules"; exit 1; }
promtool check rules "$work/rules.yml" >/dev/null

# One emulated node of 4 GPUs, one process each: the plugin serves
# /metrics on the base port plus its local rank (docs/configuration.md).
# Each job has its own 4 ports: none waits for the last job's to be free.
base=$((20000 + RANDOM % 20000))
pport=$((40000 + RANDOM % 20000))
targets="'127.0.0.1:$base'"
for k in 1 2 3 4 5 6 7; do targets="$targets, '127.0.0.1:$((base + k))'"; done
cat >"$work/prometheus.yml" <<CFG
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: ['$work/rules.yml']
scrape_configs:
  - job_name: nccl
    static_configs:
      - targets: [$targets]
CFG
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$pport" --log.level=warn >"$work/prom.log" 2>&1 &
prom_pid=$!
ready=""
for _ in $(seq 120); do
  ready=$(curl -sf "http://127.0.0.1:$pport/-/ready" 2>/dev/null || true)
  [ -n "$ready" ] && break
  sleep 0.25
done
[ -n "$ready" ] || { echo "FAIL: Prometheus did not start"; cat "$work/prom.log"; exit 1; }

# query PROMQL: the result as lines "label=value,... value" (sorted labels).
query() {
  curl -sf --get "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" 2>/dev/null |
    python3 -c '
import json, sys
try:
    for r in json.load(sys.stdin)["data"]["result"]:
        m = r["metric"]
        print(",".join(f"{k}={m[k]}" for k in sorted(m)), r["value"][1])
except (ValueError, KeyError):
    pass' || true
}

# job RUN_ID PORT NCCLEMU_ARGS...: start an emulated job in the background,
# its ranks serving /metrics on PORT + local rank.
job() {
  local run=$1 port=$2
  shift 2
  CCLSCOPE_MODE=metrics CCLSCOPE_METRICS_WINDOW=1 CCLSCOPE_PROM_PORT=$port \
    CCLSCOPE_JOB_ID=$run CCLSCOPE_DIR="$work/out-$run" \
    "$emu" --plugin "$plugin" --scenario multi-node --nodes 1 --ranks-per-node 4 \
    --nccl-version "$nccl_version" --duration 90 --quiet "$@" >"$work/$run.log" 2>&1 &
  job_pid=$!
}

firing() { query "ALERTS{alertname=\"CclscopeLateGPU\",alertstate=\"firing\",run=\"$1\"}"; }
# Run ids of this test only (another test's job may share the machine).
late=late-$$ even=even-$$

# --- 1. the planted late GPU -------------------------------------------------
job "$late" "$base" --delay-rank "$LATE" --delay-us 500
alerts=""
for _ in $(seq 240); do
  alerts=$(firing "$late")
  [ -n "$alerts" ] && break
  kill -0 "$job_pid" 2>/dev/null || break
  sleep 0.5
done
lateness=$(query "cclscope:rank_lateness_seconds:2m{run=\"$late\"}")
stop_job
if [ -z "$alerts" ]; then
  echo "FAIL: CclscopeLateGPU did not fire for the job with global rank $LATE late"
  echo "lateness by rank:"; echo "$lateness"
  cat "$work/$late.log" "$work/prom.log"
  exit 1
fi
echo "firing: $alerts"
[ "$(echo "$alerts" | wc -l)" = 1 ] || { echo "FAIL: expected one firing alert, got: $alerts"; exit 1; }
for want in "global_rank=$LATE," "rank=$LATE," "comm_name=world," "span=$evidence" \
  "instance=127.0.0.1:$((base + LATE))," "severity=warning"; do
  case ",$alerts" in *",$want"*) ;; *) echo "FAIL: the alert lacks $want: $alerts"; exit 1 ;; esac
done

# --- 2. the same job, no plant -------------------------------------------------
job "$even" $((base + 4))
covered=""
for _ in $(seq 240); do
  # every rank's lateness evaluated for the last 18 s: longer than `for`
  covered=$(query "count(count_over_time(cclscope:rank_lateness_seconds:2m{run=\"$even\",span=\"$evidence\"}[20s]) >= 18)")
  [ "${covered##* }" = 4 ] && break
  kill -0 "$job_pid" 2>/dev/null || break
  sleep 0.5
done
lateness=$(query "cclscope:rank_lateness_seconds:2m{run=\"$even\",span=\"$evidence\"}")
stop_job
[ "${covered##* }" = 4 ] ||
  { echo "FAIL: the job without a plant was not evaluated long enough ($covered)"; cat "$work/$even.log"; exit 1; }
ever=$(query "count_over_time(ALERTS{alertname=\"CclscopeLateGPU\",alertstate=\"firing\",run=\"$even\"}[10m])")
pending=$(query "count_over_time(ALERTS{alertname=\"CclscopeLateGPU\",alertstate=\"pending\",run=\"$even\"}[10m])")
echo "no plant, lateness by rank:"; echo "$lateness"
[ -z "$pending" ] || echo "(pending at some point: $pending)"
[ -z "$ever" ] || { echo "FAIL: CclscopeLateGPU fired for the job without a late GPU: $ever"; exit 1; }
echo "PASS: NCCL $nccl_version: the late GPU (global rank $LATE) was named from its $evidence span; nothing fired without a plant"
