#!/usr/bin/env bash
# tests/style/clang_format.sh — every tracked C file is formatted with the
# repository's .clang-format (clang-format from Debian 12). Fails listing
# the files that differ; fix with: clang-format -i FILE...
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null || { echo "FAIL: clang-format is not installed (scripts/install-deps.sh installs it)"; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find src include tests bench -name '*.[ch]')
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no C files found"; exit 1; }
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "FAIL: ${#bad[@]} file(s) not clang-formatted:"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "PASS: ${#files[@]} files clang-formatted"
