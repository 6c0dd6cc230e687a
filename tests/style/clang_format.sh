#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/style/clang_format.sh — every tracked C file is formatted with the
# repository's .clang-format (clang-format from Debian 12). Fails listing
# the files that differ; fix with: clang-format -i FILE...
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null || { echo "FAIL: clang-format is not installed (scripts/install-deps.sh installs it)"; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find src include tests bench -name '*.[ch]')
existing=()
for f in "${files[@]}"; do
  [ -f "$f" ] && existing+=("$f")
done
files=("${existing[@]}")
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no C files found"; exit 1; }
# One clang-format for every file (one per file took ~30 s); the files
# that differ are read from its diagnostics.
out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1) && status=0 || status=$?
mapfile -t bad < <(printf '%s\n' "$out" |
  sed -nE 's/^([^:]+):[0-9]+:[0-9]+: (error|warning): code should be clang-formatted.*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "FAIL: ${#bad[@]} file(s) not clang-formatted:"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "FAIL: clang-format failed ($status):"
  printf '%s\n' "$out" | head -20
  exit 1
fi
echo "PASS: ${#files[@]} files clang-formatted"
