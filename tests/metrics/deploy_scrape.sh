#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/metrics/deploy_scrape.sh — the shipped cluster scrape configurations
# (packaging/prometheus/scrape-slurm.yml, scrape-kubernetes.yml) in a real
# Prometheus server (Debian's package) scraping an emulated job's per-rank
# /metrics endpoints (ncclemu, 1 node x 4 GPUs, ports BASE + local rank):
#   1. SLURM: cclscope-slurm-targets writes the job's file_sd file from fake
#      SLURM variables (and a stand-in `scontrol`); every rank becomes a
#      target that is up, labelled with its job id; --remove takes them away;
#      its errors (no job id, no port) are refused with a message.
#   2. Kubernetes: Debian's Prometheus is built without Kubernetes discovery,
#      so the shipped relabelling rules run on targets that carry the labels
#      pod discovery would give (__meta_kubernetes_*, through file_sd): the
#      four cclscope-N ports of a running pod are kept with local_rank, pod,
#      namespace and node; another port of that pod and a pending pod's port
#      are dropped.
#   3. The OpenTelemetry Collector configuration parses, receives OTLP/HTTP on
#      4318 and every pipeline names components it defines (no collector
#      binary here: its structure only).
# usage: deploy_scrape.sh NCCLEMU PLUGIN PACKAGING_DIR
set -euo pipefail
emu=$1 plugin=$2 pkg=$3
for tool in prometheus promtool curl python3; do
  command -v "$tool" >/dev/null ||
    { echo "FAIL: $tool is not installed (scripts/install-deps.sh installs it)"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-scrape-XXXXXX")
prom_pid="" job_pid=""
set -m
cleanup() {
  if [ -n "$job_pid" ]; then
    kill -TERM -- "-$job_pid" 2>/dev/null || true
    wait "$job_pid" 2>/dev/null || true
  fi
  if [ -n "$prom_pid" ]; then kill "$prom_pid" 2>/dev/null || true; wait "$prom_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$work/prom.log" ] && tail -20 "$work/prom.log"; exit 1; }

slurm_cfg=$pkg/prometheus/scrape-slurm.yml k8s_cfg=$pkg/prometheus/scrape-kubernetes.yml
targets_tool=$pkg/prometheus/cclscope-slurm-targets
promtool check config "$slurm_cfg" >/dev/null 2>&1 ||
  { promtool check config "$slurm_cfg"; fail "promtool rejects $slurm_cfg"; }

# --- the emulated job: 4 ranks serving /metrics on BASE + local rank ---------
base=$((20000 + RANDOM % 20000))
pport=$((40000 + RANDOM % 20000))
CCLSCOPE_MODE=metrics CCLSCOPE_METRICS_WINDOW=1 CCLSCOPE_PROM_PORT=$base \
  CCLSCOPE_JOB_ID=scrape-$$ CCLSCOPE_DIR="$work/out" \
  "$emu" --plugin "$plugin" --scenario multi-node --nodes 1 --ranks-per-node 4 \
  --duration 600 --quiet >"$work/job.log" 2>&1 &
job_pid=$!

# --- 1. SLURM: the targets file ------------------------------------------------
mkdir -p "$work/bin" "$work/sd"
cat >"$work/bin/scontrol" <<'SC'
#!/bin/sh
# stand-in for SLURM's scontrol: `show hostnames LIST` prints one host a line
[ "$1 $2" = "show hostnames" ] || exit 1
echo 127.0.0.1
SC
chmod +x "$work/bin/scontrol"
run_targets() { env PATH="$work/bin:$PATH" SLURM_JOB_NODELIST=node1 SLURM_TASKS_PER_NODE='4(x1)' "$@"; }
if out=$(run_targets CCLSCOPE_PROM_PORT=$base "$targets_tool" --dir "$work/sd" 2>&1); then
  fail "cclscope-slurm-targets ran without SLURM_JOB_ID: $out"
fi
case $out in *SLURM_JOB_ID*) ;; *) fail "no SLURM_JOB_ID: the message does not say so: $out" ;; esac
if out=$(run_targets SLURM_JOB_ID=4242 "$targets_tool" --dir "$work/sd" 2>&1); then
  fail "cclscope-slurm-targets ran without CCLSCOPE_PROM_PORT: $out"
fi
case $out in *CCLSCOPE_PROM_PORT*) ;; *) fail "no port: the message does not say so: $out" ;; esac
[ -z "$(ls "$work/sd")" ] || fail "a refused run left a file: $(ls "$work/sd")"
run_targets SLURM_JOB_ID=4242 CCLSCOPE_PROM_PORT=$base "$targets_tool" --dir "$work/sd"
python3 - "$work/sd/cclscope-4242.json" "$base" <<'PY'
import json, sys
groups = json.load(open(sys.argv[1]))
base = int(sys.argv[2])
want = [f"127.0.0.1:{base + i}" for i in range(4)]
assert len(groups) == 1 and groups[0]["targets"] == want, groups
assert groups[0]["labels"] == {"slurm_job_id": "4242"}, groups
PY

# --- 2. Kubernetes: pod discovery's labels, given through file_sd --------------
mkdir -p "$work/k8s"
python3 - "$work/k8s/pods.json" "$base" <<'PY'
import json, sys
base = int(sys.argv[2])
def target(port, name, pod, phase):
    return {"targets": [f"127.0.0.1:{port}"], "labels": {
        "__meta_kubernetes_pod_container_port_name": name,
        "__meta_kubernetes_pod_phase": phase,
        "__meta_kubernetes_namespace": "training",
        "__meta_kubernetes_pod_name": pod,
        "__meta_kubernetes_pod_node_name": "gpu-node-3"}}
groups = [target(base + i, f"cclscope-{i}", "trainer-0", "Running") for i in range(4)]
groups.append(target(base + 10, "http", "trainer-0", "Running"))
groups.append(target(base + 11, "cclscope-0", "trainer-1", "Pending"))
json.dump(groups, open(sys.argv[1], "w"))
PY
# The shipped Kubernetes job with its discovery swapped for file_sd (the
# relabelling rules, which are what is tested, are left as shipped).
python3 - "$k8s_cfg" "$work/k8s/pods.json" >"$work/k8s.yml" <<'PY'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
[job] = cfg["scrape_configs"]
assert job["kubernetes_sd_configs"] == [{"role": "pod"}], job["kubernetes_sd_configs"]
del job["kubernetes_sd_configs"]
job["file_sd_configs"] = [{"files": [sys.argv[2]]}]
job["job_name"] = "cclscope-k8s"
print(yaml.safe_dump(job))
PY
{
  echo "global: {scrape_interval: 1s, evaluation_interval: 1s}"
  echo "scrape_configs:"
  python3 - "$slurm_cfg" "$work/sd/*.json" <<'PY'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
[job] = cfg["scrape_configs"]
[sd] = job["file_sd_configs"]
assert sd["files"] == ["/etc/prometheus/cclscope.d/*.json"], sd
sd["files"] = [sys.argv[2]]
sd["refresh_interval"] = "1s"
job["scrape_interval"] = "1s"
job["scrape_timeout"] = "1s"
print(yaml.safe_dump([job]))
PY
  sed 's/^/  /' "$work/k8s.yml" | sed '1s/^  /- /'
} >"$work/prometheus.yml"
sed -i 's/^\(  *\)scrape_interval: 15s$/\1scrape_interval: 1s/; s/^\(  *\)scrape_timeout: 5s$/\1scrape_timeout: 1s/' "$work/prometheus.yml"
promtool check config "$work/prometheus.yml" >/dev/null 2>&1 ||
  { promtool check config "$work/prometheus.yml"; cat "$work/prometheus.yml"; fail "the test's configuration is invalid"; }

prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$pport" --log.level=warn >"$work/prom.log" 2>&1 &
prom_pid=$!
ready=""
for _ in $(seq 120); do
  ready=$(curl -sf "http://127.0.0.1:$pport/-/ready" 2>/dev/null || true)
  [ -n "$ready" ] && break
  sleep 0.25
done
[ -n "$ready" ] || fail "Prometheus did not start"

# targets JOB: the job's active targets as lines "instance health labels..."
targets() {
  curl -sf "http://127.0.0.1:$pport/api/v1/targets?state=active" 2>/dev/null |
    python3 -c '
import json, sys
for t in json.load(sys.stdin)["data"]["activeTargets"]:
    l = t["labels"]
    if l.get("job") != sys.argv[1]:
        continue
    rest = ",".join(f"{k}={l[k]}" for k in sorted(l) if k not in ("job", "instance"))
    print(l["instance"], t["health"], rest)' "$1" | sort || true
}
# wait_for JOB WANT: until the job's targets are exactly WANT (20 s at most)
wait_for() {
  local got=""
  for _ in $(seq 80); do
    got=$(targets "$1")
    [ "$got" = "$2" ] && return 0
    kill -0 "$job_pid" 2>/dev/null || { wait "$job_pid"; fail "the emulated job ended early (status $?): $(tail -5 "$work/job.log")"; }
    sleep 0.25
  done
  echo "want:"; echo "$2"; echo "got:"; echo "$got"
  return 1
}

want=""
for i in 0 1 2 3; do want="${want}127.0.0.1:$((base + i)) up slurm_job_id=4242"$'\n'; done
wait_for cclscope "${want%$'\n'}" || fail "the SLURM job's ranks are not all scraped and up"
echo "SLURM: the 4 ranks of job 4242 are up"

want=""
for i in 0 1 2 3; do
  want="${want}127.0.0.1:$((base + i)) up local_rank=$i,namespace=training,node=gpu-node-3,pod=trainer-0"$'\n'
done
wait_for cclscope-k8s "${want%$'\n'}" || fail "the Kubernetes rules do not keep exactly the running pod's cclscope ports"
echo "Kubernetes: the running pod's 4 cclscope ports are up, the other port and the pending pod dropped"

run_targets SLURM_JOB_ID=4242 "$targets_tool" --dir "$work/sd" --remove
[ ! -e "$work/sd/cclscope-4242.json" ] || fail "--remove left the file"
wait_for cclscope "" || fail "the ended job's targets were not removed"
echo "SLURM: --remove took the job's targets away"

# --- 3. the OpenTelemetry Collector configuration ------------------------------
python3 - "$pkg/otel/otel-collector.yaml" <<'PY'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
http = cfg["receivers"]["otlp"]["protocols"]["http"]
assert http["endpoint"].endswith(":4318"), http
pipelines = cfg["service"]["pipelines"]
assert "metrics" in pipelines, pipelines
for name, p in pipelines.items():
    for kind in ("receivers", "processors", "exporters"):
        for component in p.get(kind, []):
            assert component in cfg[kind], f"pipeline {name} names {kind[:-1]} {component}, not defined"
PY
echo "PASS: the shipped SLURM and Kubernetes scrape configurations find every rank; the collector config is whole"
