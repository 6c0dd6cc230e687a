#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/style/paths_exist_teeth.sh — paths_exist.sh finds what it must and
# nothing else: it runs on a small made-up tree that names missing paths in
# every kind of file it reads (each must be reported) and, beside them,
# paths it must leave alone (URLs, paths behind a variable or another
# folder, patterns, C code, other projects' trees, existing files).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

mkdir -p "$tree"/{src/plugin/hot,docs,tests/x,scripts,web}
touch "$tree"/src/plugin/hot/emit.h "$tree"/src/plugin/hot/abi_v1.c \
  "$tree"/web/view.html
cat >"$tree"/docs/guide.md <<'EOF'
Stale: `src/plugin/emit.h`, [a link](../tests/gone/README.md), and
[one beside](missing.md), a pattern `src/plugin/abi_*.c` and a folder
tests/old_plugins/.
Fine: `src/plugin/hot/emit.h`, src/plugin/hot/, `src/plugin/hot/abi_*.c`,
[home](../web/view.html), https://github.com/x/y/blob/main/src/gone.c,
`$build/tests/gone.so`, tests/$name.so, `src/<part>/x.c`, the folder
src/plugin, NCCL's `src/plugin/profiler.cc` and `src/include/comm.h`,
the end of a sentence: src/plugin/hot/emit.h.
EOF
cat >"$tree"/src/plugin/hot/abi_v1.c <<'EOF'
/* src/plugin/hot/abi_v1.c — stale in a comment: src/plugin/record.h */
static const char *code = "src/in_a_string.c"; // tests/in_line_comment.c
/*
 * wrapped: the assembler (src/plugin/
 * assembler.c), still whole: src/plugin/
 * hot/emit.h, a folder at the end of a sentence: src/plugin/
 * and the next one.
 */
EOF
cat >"$tree"/tests/x/CMakeLists.txt <<'EOF'
# stale: scripts/gone.sh
add_test(NAME a COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_gone.sh
         ${CMAKE_SOURCE_DIR}/web/view.html ${CMAKE_BINARY_DIR}/tests/built.so)
EOF
cat >"$tree"/scripts/s.sh <<'EOF'
#!/bin/sh
# runs bench/gone.c
"$out/tests/made_at_run_time.so" src/plugin/hot/emit.h
EOF
cat >"$tree"/scripts/noext <<'EOF'
#!/usr/bin/env bash
exec docs/gone_too.md
EOF

must_report=(
  "docs/guide.md:1: src/plugin/emit.h does not exist"
  "docs/guide.md:1: ../tests/gone/README.md does not exist"
  "docs/guide.md:2: missing.md does not exist"
  "docs/guide.md:2: src/plugin/abi_*.c does not exist"
  "docs/guide.md:3: tests/old_plugins/ does not exist"
  "src/plugin/hot/abi_v1.c:1: src/plugin/record.h does not exist"
  "src/plugin/hot/abi_v1.c:2: tests/in_line_comment.c does not exist"
  "src/plugin/hot/abi_v1.c:4: src/plugin/assembler.c does not exist"
  "tests/x/CMakeLists.txt:1: scripts/gone.sh does not exist"
  'tests/x/CMakeLists.txt:2: ${CMAKE_CURRENT_SOURCE_DIR}/run_gone.sh does not exist'
  "scripts/s.sh:2: bench/gone.c does not exist"
  "scripts/noext:2: docs/gone_too.md does not exist"
)

status=0
out=$(PATHS_EXIST_MIN_REFS=1 bash "$here/paths_exist.sh" "$tree" 2>&1) || status=$?
fail=0
if [ "$status" -eq 0 ]; then
  echo "FAIL: paths_exist.sh passed a tree with missing paths"
  fail=1
fi
for want in "${must_report[@]}"; do
  grep -q -F -- "  $want" <<<"$out" || { echo "FAIL: not reported: $want"; fail=1; }
done
# Nothing else: every "does not exist" line is one of the planted ones
# (the real repository's ignore entries are reported as matching nothing
# here, which is right: this tree has none of their files).
while IFS= read -r line; do
  line=${line#  }
  found=0
  for want in "${must_report[@]}"; do [ "$line" = "$want" ] && found=1; done
  [ $found -eq 1 ] || { echo "FAIL: false alarm: $line"; fail=1; }
done < <(grep 'does not exist$' <<<"$out")
grep -q 'ignore list entry for .* matches nothing' <<<"$out" || {
  echo "FAIL: an ignore entry that matches nothing was not reported"
  fail=1
}
if [ $fail -ne 0 ]; then
  printf 'paths_exist.sh said:\n%s\n' "$out"
  exit 1
fi
echo "PASS: paths_exist.sh reports all ${#must_report[@]} planted missing paths and no other"
