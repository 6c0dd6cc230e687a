#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/run_folders.sh — one folder per job (src/plugin/run_name.h)
# without any launcher job id: two emulated jobs started together (NCCL
# draws each job its own unique id: --unique-id) land in two folders, even
# though one job's last process starts more than a second after its others;
# every file name carries the process's global rank, and the CLI reads the
# folders.
# usage: run_folders.sh NCCLEMU PLUGIN CCLSCOPE
set -euo pipefail
emu=$1 plugin=$2 cli=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-runfolders-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  find "$work" -name '*.jsonl' | sort
  cat "$work/emu.log" 2>/dev/null || true
  exit 1
}
# No launcher may name the run: the first communicator must. Callback
# times are tests/e2e's other tests' business (a sanitizer build on a busy
# machine may pass ncclemu's default limit).
job() { # folder-to-run-in, ncclemu options...
  (cd "$1" && shift &&
    env -u CCLSCOPE_DIR -u CCLSCOPE_JOB_ID -u SLURM_JOB_ID -u PBS_JOBID \
      -u LSB_JOBID -u FLUX_JOB_ID -u TORCHELASTIC_RUN_ID -u PMIX_NAMESPACE \
      -u OMPI_MCA_ess_base_jobid -u OMPI_MCA_orte_ess_jobid -u MASTER_ADDR \
      -u MASTER_PORT CCLSCOPE_SUMMARY=off CCLSCOPE_MASK=coll \
      "$emu" --plugin "$plugin" --max-callback-ms 5000 --scenario single-node \
      --pace none --ops 2 "$@" \
      >>"$work/emu.log" 2>&1)
}
folders() { find "$1" -maxdepth 1 -type d -name 'cclscope-*' | sort; }

# Two jobs at the same time, the first with its process 3 started 1.2 s
# after the others: two folders, four ranks each.
mkdir "$work/two"
job "$work/two" --unique-id 101 --start-late 3:1200 &
first=$!
job "$work/two" --unique-id 202 || fail "the second job failed"
wait "$first" || fail "the first job failed"
mapfile -t two < <(folders "$work/two")
[ "${#two[@]}" -eq 2 ] || fail "two jobs made ${#two[@]} folder(s), expected 2"
for d in "${two[@]}"; do
  for r in 0 1 2 3; do
    n=$(find "$d" -name "trace_*_r${r}_emu-node0_pid*.jsonl" | wc -l)
    [ "$n" -eq 1 ] || fail "$d: $n trace(s) of rank $r, expected 1"
  done
  grep -q '"runIdSource":"commId"' "$d"/trace_*_r0_*.jsonl ||
    fail "$d: the header does not say the run id came from the communicator"
  "$cli" check "$d" >/dev/null || fail "cclscope check $d"
done

# The late process of the first job really did start more than a second
# after every other process of its job (ncclemu's --start-late waits for
# their first inits, so this holds on a loaded machine too), and still
# wrote into its job's folder (checked above).
start_of() { # trace file -> its process record's ts, whole microseconds
  grep -m1 -o '"recordType":"process".*"ts":[0-9]*' "$1" | sed 's/.*"ts"://'
}
late=
for d in "${two[@]}"; do
  r3=$(start_of "$d"/trace_*_r3_*.jsonl)
  after=1
  for r in 0 1 2; do
    rk=$(start_of "$d"/trace_*_r${r}_*.jsonl)
    [ $((r3 - rk)) -ge 1000000 ] || after=0
  done
  [ "$after" -eq 1 ] && late=$d
done
[ -n "$late" ] || fail "no job's process 3 started 1 s or more after its others"
echo "ok: two jobs -> ${two[*]##*/}; the late process wrote into ${late##*/}"
