#!/usr/bin/env bash
# tests/e2e/run_folders.sh — one folder per job (src/plugin/run_name.h)
# without any launcher job id: two emulated jobs started together (NCCL
# draws each job its own unique id: --unique-id) land in two folders, and
# one job whose last process starts more than a second after the others
# lands in one; every file name carries the process's global rank, and the
# CLI reads the folder.
# usage: run_folders.sh NCCLEMU PLUGIN CCLSCOPE
set -euo pipefail
emu=$1 plugin=$2 cli=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-runfolders-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; find "$work" -name '*.jsonl' | sort; exit 1; }
# No launcher may name the run: the first communicator must.
job() { # folder-to-run-in, ncclemu options...
  (cd "$1" && shift &&
    env -u CCLSCOPE_DIR -u CCLSCOPE_JOB_ID -u SLURM_JOB_ID -u PBS_JOBID \
      -u LSB_JOBID -u FLUX_JOB_ID -u TORCHELASTIC_RUN_ID -u PMIX_NAMESPACE \
      -u OMPI_MCA_ess_base_jobid -u OMPI_MCA_orte_ess_jobid -u MASTER_ADDR \
      -u MASTER_PORT CCLSCOPE_SUMMARY=off CCLSCOPE_MASK=coll \
      "$emu" --plugin "$plugin" --scenario single-node --pace none --ops 2 "$@" \
      >>"$work/emu.log" 2>&1)
}
folders() { find "$1" -maxdepth 1 -type d -name 'cclscope-*' | sort; }

# Two jobs at the same time: two folders, four ranks each.
mkdir "$work/two"
job "$work/two" --unique-id 101 &
job "$work/two" --unique-id 202
wait $! || fail "the first job failed"
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

# One job, its process 3 started 1.2 s after the others: one folder.
mkdir "$work/late"
job "$work/late" --start-late 3:1200
mapfile -t late < <(folders "$work/late")
[ "${#late[@]}" -eq 1 ] || fail "one job made ${#late[@]} folder(s), expected 1"
[ "$(find "${late[0]}" -name 'trace_*.jsonl' | wc -l)" -eq 4 ] ||
  fail "the late job's folder does not hold its 4 traces"
# Its processes really did start in different seconds.
first=$(grep -ho '"recordType":"process".*"ts":[0-9]*' "${late[0]}"/trace_*_r0_*.jsonl | sed 's/.*"ts"://')
last=$(grep -ho '"recordType":"process".*"ts":[0-9]*' "${late[0]}"/trace_*_r3_*.jsonl | sed 's/.*"ts"://')
[ $((last - first)) -ge 1000000 ] ||
  fail "process 3 started $((last - first)) us after process 0, expected >= 1 s"
"$cli" check "${late[0]}" >/dev/null || fail "cclscope check ${late[0]}"
echo "ok: two jobs -> ${two[*]##*/}; a late process -> ${late[0]##*/}"
