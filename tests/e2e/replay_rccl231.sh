#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/replay_rccl231.sh — an RCCL 2.31 recording replayed: RCCL 2.31
# sends ProxyDiagUpdate as 32 (31 before 2.31, docs/trace-format.md
# "States"), and the replay sends each state by the number the trace
# recorded (its "id"), so the replayed traces have as many ProxyDiagUpdate
# states as the recording, all 32, none 31.
# usage: replay_rccl231.sh NCCLEMU PLUGIN
set -euo pipefail
emu=$1 plugin=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-replay-rccl231-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off
if ! CCLSCOPE_DIR="$work/recorded" "$emu" --plugin "$plugin" --scenario mixed \
  --pace none --sizes 4K,300K --host rccl --nccl-version 2.31 >"$work/record.log" 2>&1; then
  echo "FAIL: recording failed:"; tail -n 30 "$work/record.log"; exit 1
fi
if ! CCLSCOPE_DIR="$work/replayed" "$emu" --plugin "$plugin" --replay "$work/recorded" \
  >"$work/replay.log" 2>&1; then
  echo "FAIL: ncclemu --replay failed:"; tail -n 30 "$work/replay.log"; exit 1
fi
count() { # DIR ID: ProxyDiagUpdate states numbered ID in the traces of DIR
  cat "$1"/*.jsonl | grep -o "\"name\":\"ProxyDiagUpdate\",\"id\":$2" | wc -l
}
recorded=$(count "$work/recorded" 32) replayed=$(count "$work/replayed" 32)
echo "ProxyDiagUpdate (32): $recorded recorded, $replayed replayed"
[ "$recorded" -gt 0 ] || { echo "FAIL: the recording has no ProxyDiagUpdate 32"; exit 1; }
[ "$replayed" -eq "$recorded" ] || { echo "FAIL: replayed $replayed of $recorded"; exit 1; }
for dir in recorded replayed; do
  [ "$(count "$work/$dir" 31)" -eq 0 ] ||
    { echo "FAIL: the $dir traces number ProxyDiagUpdate 31"; exit 1; }
done
echo "ok: RCCL 2.31's ProxyDiagUpdate replayed as 32"
