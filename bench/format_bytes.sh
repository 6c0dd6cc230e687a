#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# bench/format_bytes.sh — bytes on disk per event of each trace format, on
# the e2e suite's ncclemu scenarios (tests/e2e/CMakeLists.txt,
# BINARY_SCENARIOS: the same seeded runs, every event type).
#
#   bench/format_bytes.sh BUILD_DIR [ZSTD_LEVEL]   (default level 1)
#   OPS=64 bench/format_bytes.sh BUILD_DIR          (--ops of every scenario;
#                                                   default 8, the e2e suite's)
#
# Each scenario is run four times (JSONL plain, JSONL zstd, binary plain,
# binary zstd); per run it prints the bytes of its trace files, its event
# records (`"recordType":"event"` lines of the files read as JSONL: two runs
# differ a little in their counts) and the bytes per event, then one
# Markdown table of bytes per event per scenario and format.
set -euo pipefail
build=$(cd "${1:?usage: format_bytes.sh BUILD_DIR [ZSTD_LEVEL]}" && pwd)
level=${2:-1}
ops=${OPS:-8}
work=$(mktemp -d /tmp/format-bytes.XXXXXX)
trap 'rm -rf "$work"' EXIT
scenarios=(
  "mixed|--scenario mixed --ops $ops"
  "multi_node|--scenario multi-node --ops $ops"
  "pxn|--scenario pxn --ops $ops"
  "graph|--scenario graph --ops $ops"
  "kernel_phases|--scenario single-node --nccl-version 2.31 --ops $ops"
  "rccl|--host rccl --scenario single-node --ops $ops")
formats=("jsonl none" "jsonl zstd:$level" "binary none" "binary zstd:$level")
echo "| scenario | events | JSONL | JSONL zstd:$level | binary | binary zstd:$level |"
echo "|---|---|---|---|---|---|"
for entry in "${scenarios[@]}"; do
  name=${entry%%|*}
  read -r -a args <<<"${entry#*|}"
  row="| $name |"
  events_first=
  cells=
  for f in "${formats[@]}"; do
    read -r format compress <<<"$f"
    dir=$work/$name-$format-${compress%%:*}
    CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off CCLSCOPE_FORMAT=$format \
      CCLSCOPE_COMPRESS=$compress CCLSCOPE_DIR=$dir NCCL_DEBUG=WARN \
      "$build/ncclemu" --plugin "$build/libnccl-profiler-cclscope.so" \
      --pace none --seed 3 "${args[@]}" >"$dir.log" 2>&1 ||
      { cat "$dir.log" >&2; echo "ncclemu failed: $name $f" >&2; exit 1; }
    bytes=$(find "$dir" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
    "$build/cclscope" convert -o "$dir.text" "$dir" 2>"$dir.conv" ||
      { cat "$dir.conv" >&2; echo "convert failed: $name $f" >&2; exit 1; }
    events=$(cat "$dir.text"/* | grep -c '"recordType":"event"')
    [ -n "$events_first" ] || events_first=$events
    echo "$name $format $compress: $bytes bytes, $events events" >&2
    cells="$cells $(awk -v b="$bytes" -v e="$events" 'BEGIN {printf "%.1f", b / e}') |"
  done
  echo "$row $events_first |$cells"
done
