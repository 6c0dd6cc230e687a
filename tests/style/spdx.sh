#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/style/spdx.sh — every tracked source file says its licence: an
# `SPDX-License-Identifier: Apache-2.0` line among its first three lines
# (after a #! line), in C and header files, shell and Python scripts,
# JavaScript, CSS, CMake and YAML files (README.md, "Licence"). Data files
# (JSON, JSON Lines fixtures, pictures) and prose (Markdown) carry none.
# The repository's LICENSE must be the Apache License 2.0.
set -euo pipefail
cd "$(dirname "$0")/../.."
tag='SPDX-License-Identifier: Apache-2.0'
grep -q 'Apache License' LICENSE && grep -q 'Version 2.0, January 2004' LICENSE ||
  { echo "FAIL: LICENSE is not the Apache License 2.0"; exit 1; }
missing=0 checked=0
while IFS= read -r -d '' f; do
  case "$f" in
    *.c | *.h | *.sh | *.py | *.js | *.mjs | *.css | *.cmake | *.yml | *.in | \
      *.bash | */CMakeLists.txt | CMakeLists.txt | .ci/run | */Dockerfile) ;;
    *) continue ;;
  esac
  checked=$((checked + 1))
  if ! head -n 3 "$f" | grep -qF "$tag"; then
    echo "missing: $f"
    missing=$((missing + 1))
  fi
done < <(git ls-files -z)
if [ "$missing" -gt 0 ]; then
  echo "FAIL: $missing of $checked source files lack '$tag' in their first lines"
  exit 1
fi
echo "PASS: $checked source files carry '$tag'"
