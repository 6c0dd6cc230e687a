#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/verify_or_rerun.sh — verify a trace folder that an emulated run
# wrote; when the verdict depends on wall-clock timing (a straggler 8 ms
# late, a modelled bandwidth) and a busy machine spoiled it, record the
# run again into a fresh folder and verify that, at most ATTEMPTS runs in
# all. Each rerun is said. A real regression fails every run.
# usage: verify_or_rerun.sh ATTEMPTS DIR -- EMU_COMMAND... -- VERIFY_COMMAND...
#   VERIFY_COMMAND names the folder as @DIR@; EMU_COMMAND writes where
#   CCLSCOPE_DIR points (set here for the reruns).
set -euo pipefail
attempts=$1 dir=$2
shift 2
[ "${1:-}" = "--" ] || { echo "usage: $0 ATTEMPTS DIR -- EMU... -- VERIFY..." >&2; exit 2; }
shift
emu=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do emu+=("$1"); shift; done
[ "${1:-}" = "--" ] || { echo "usage: $0 ATTEMPTS DIR -- EMU... -- VERIFY..." >&2; exit 2; }
shift
[ $# -gt 0 ] || { echo "usage: $0 ATTEMPTS DIR -- EMU... -- VERIFY..." >&2; exit 2; }

verify() { # FOLDER: run the verify command on it
  local args=()
  for a in "${verify_cmd[@]}"; do args+=("${a//@DIR@/$1}"); done
  "${args[@]}"
}
verify_cmd=("$@")
if out=$(verify "$dir" 2>&1); then
  echo "$out"
  exit 0
fi
for i in $(seq 2 "$attempts"); do
  echo "note: run $((i - 1)) did not verify (busy machine?):"
  echo "$out" | tail -n 5 | sed 's/^/  /'
  retry="$dir.rerun$i"
  rm -rf "$retry"
  echo "note: recording run $i into $retry"
  CCLSCOPE_DIR="$retry" "${emu[@]}" >/dev/null 2>&1 ||
    { echo "FAIL: the emulator failed on run $i"; exit 1; }
  if out=$(verify "$retry" 2>&1); then
    echo "$out"
    echo "note: verified on run $i of $attempts"
    exit 0
  fi
done
echo "FAIL: no run of $attempts verified; the last said:"
echo "$out"
exit 1
