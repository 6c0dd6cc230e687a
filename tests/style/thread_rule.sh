#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/style/thread_rule.sh — nothing that runs on NCCL's threads reaches
# writer-thread code (src/plugin/README.md, "Who runs the code").
#
# Every `#include "..."` in src/plugin/hot/ must name a header that is
#   - in src/plugin/hot/ itself,
#   - one of the plugin root headers listed below, each safe to call from
#     any thread (and session.h only where the file says why),
#   - in src/common/ or include/;
# never one in src/plugin/writer/, trace/ or metrics/. Headers are included
# by bare name (every plugin folder is an include directory), so a name
# must also be unique across the plugin's folders: the check fails on a
# name two folders hold, because then the folder a bare name reaches would
# depend on the order of the include directories.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/../.."

plugin=src/plugin
# Root headers the hot side may include, and why each is safe there.
declare -A root_ok=(
  [log.h]="messages: once-only warnings, safe from any thread"
  [event_types.h]="the event-type and state enums, constant name tables"
  [optional_lib.h]="a dlopen search without state, called by the bridges at session begin"
)
# session.h is the lifecycle (a mutex): only the callbacks that ARE the
# lifecycle (init, finalize) may include it.
declare -A session_ok=(
  [abi_common.c]="finalize calls cs_session_finalize"
  [abi_v1_to_v4.c]="init calls cs_session_init"
  [abi_v5_to_v7.c]="init calls cs_session_init"
)

[ -d "$plugin/hot" ] || { echo "FAIL: $plugin/hot is missing"; exit 1; }

problems=()

# ---- header names: which folder holds each (unique across the plugin)
declare -A home=()
while IFS= read -r h; do
  dir=$(dirname "$h")
  name=$(basename "$h")
  folder=${dir#"$plugin"}
  folder=${folder#/}
  [ -n "$folder" ] || folder=root
  if [ -n "${home[$name]:-}" ]; then
    problems+=("$name is in both $plugin/${home[$name]} and $h: a bare #include would be ambiguous")
  else
    home[$name]=$folder
  fi
done < <(find "$plugin" -name '*.h' | sort)

# ---- every include of every file in hot/
nfiles=0
nincludes=0
for f in "$plugin"/hot/*.[ch]; do
  nfiles=$((nfiles + 1))
  base=$(basename "$f")
  while IFS=: read -r line inc; do
    nincludes=$((nincludes + 1))
    where="$f:$line: #include \"$inc\""
    folder=${home[$inc]:-}
    if [ -z "$folder" ]; then
      if [ -f "src/common/$inc" ] || [ -f "include/$inc" ]; then
        continue
      fi
      problems+=("$where: not found in $plugin, src/common or include")
      continue
    fi
    case "$folder" in
    hot) ;;
    root)
      if [ "$inc" = session.h ]; then
        [ -n "${session_ok[$base]:-}" ] ||
          problems+=("$where: session.h (the lifecycle, under a mutex) is for the init/finalize callbacks only")
      elif [ -z "${root_ok[$inc]:-}" ]; then
        problems+=("$where: $plugin/$inc is not one of the root headers the hot side may include (${!root_ok[*]})")
      fi
      ;;
    *)
      problems+=("$where: $plugin/$folder/ is writer-thread code; NCCL's threads must not reach it")
      ;;
    esac
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
    sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done

[ "$nfiles" -gt 0 ] || problems+=("no C files in $plugin/hot")
if [ ${#problems[@]} -gt 0 ]; then
  echo "FAIL: ${#problems[@]} problem(s):"
  printf '  %s\n' "${problems[@]}"
  exit 1
fi
echo "PASS: $nincludes includes in $nfiles files of $plugin/hot stay on NCCL's side"
