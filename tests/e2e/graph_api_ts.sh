#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/graph_api_ts.sh — graph replays have no API call of their own.
# usage: graph_api_ts.sh NCCLEMU PLUGIN
# A replayed Coll names the capture-time CollApi as parent (real NCCL 2.28.9
# on a GPU does; docs/nccl-behaviour.md §8.7). Its timing record must not
# take that call's start as its apiNs (apiTs in format version 1; every
# replay would then "arrive" at capture time): it is null and readers use
# the enqueue start.
set -euo pipefail
emu=$1 plugin=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-graph-XXXXXX")
trap 'rm -rf "$work"' EXIT
CCLSCOPE_DIR="$work/out" "$emu" --plugin "$plugin" --scenario graph --ops 4 \
  --quiet >"$work/log" 2>&1 || { echo "FAIL: ncclemu"; cat "$work/log"; exit 1; }
timing=$(cat "$work"/out/trace_*.jsonl | grep -c '"recordType":"timing"' || true)
with_api=$(cat "$work"/out/trace_*.jsonl | grep '"recordType":"timing"' |
  grep -vc '"apiNs":null' || true)
echo "timing records: $timing, with an apiTs: $with_api"
[ "$timing" -ge 16 ] || { echo "FAIL: expected >= 16 timing records"; exit 1; }
[ "$with_api" -eq 0 ] || { echo "FAIL: replays took the capture-time apiTs"; exit 1; }
echo "ok: every replay's apiTs is null"
