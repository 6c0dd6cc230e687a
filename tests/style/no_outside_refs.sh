#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/style/no_outside_refs.sh — the repository cites only itself.
#
# Fails when a tracked text file (outside node_modules, and other than this
# script)
#   1. names a document that is not in the repository (the design and
#      reference notes the project was started from);
#   2. cites a section `§N` / `§N.M` that the cited document does not have.
#      The document is docs/nccl-behaviour.md unless the word right before
#      the `§` names another one: `trace-format.md §3`, `docs/x.md §3`, or
#      the short form `nccl-behaviour §3` (= docs/nccl-behaviour.md). A
#      section exists when the document has a heading that starts with its
#      number (`### 6.12 NetPlugin ...`, `## 2. Loading ...`);
#   3. links to an anchor `#sN.M` or `#invariant-N` that the target document
#      does not define (`<a id="s6.12"></a>`);
#   4. says "invariant N" for an N that docs/invariants.md does not number;
#   5. has a numbered heading in docs/nccl-behaviour.md or docs/invariants.md
#      without its anchor on the line before (the citation scheme: every
#      section `N.M` is `#sN.M`, every invariant `N` is `#invariant-N`).
# The convention is explained in docs/README.md.
set -euo pipefail
export LC_ALL=C # match bytes: the result must not depend on the locale
cd "$(dirname "$0")/../.."

self=tests/style/no_outside_refs.sh
behaviour=docs/nccl-behaviour.md
invariants=docs/invariants.md
sect=$'\xc2\xa7' # the section sign, UTF-8

for doc in "$behaviour" "$invariants"; do
  [ -f "$doc" ] || { echo "FAIL: $doc is missing"; exit 1; }
done

# ---- the files: tracked (or, outside a git checkout, everything but builds)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -d '' -t all < <(git ls-files -z)
else
  mapfile -d '' -t all < <(find . \( -name .git -o -name node_modules \
    -o -path './build*' \) -prune -o -type f -print0 | sed -z 's|^\./||')
fi
files=()
for f in "${all[@]}"; do
  case "$f" in
  node_modules/* | */node_modules/* | "$self") continue ;;
  esac
  [ -f "$f" ] && files+=("$f")
done
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no files found"; exit 1; }

problems=()

# ---- 1. documents outside the repository
while IFS= read -r hit; do
  problems+=("$hit: names a document outside the repository")
done < <(grep -n -I -F -e 'shared/design' -e 'shared/reference' \
  -e 'shared/seeds' -e 'BRIEF.md' -e 'BRIEF invariant' \
  -e 'nccl-call-sequences' -e 'call-sequences '"$sect" \
  -e 'peers-and-users.md' -e 'nccl-plugin-anchors' -- "${files[@]}" || true)

# ---- section numbers of a document, loaded once
declare -A sections=() loaded=()
load_sections() {
  local doc=$1 n
  [ -n "${loaded[$doc]:-}" ] && return
  loaded[$doc]=1
  while IFS= read -r n; do
    sections["$doc|$n"]=1
  done < <(grep -o -P '^#{1,6} \K[0-9]+(\.[0-9]+)*' "$doc" || true)
}

# The document a `§` cites, from the word before it: sets $doc ("" when the
# word names a document that does not exist). No subshells: this runs for
# every citation.
dir_of() { [[ $1 == */* ]] && dir=${1%/*} || dir=.; }
resolve_doc() {
  local file=$1 word=$2 c
  word=${word##*[\[\(\`\"\'\*]} # drop what opens a link, span, quote
  word=${word%%[\`\"\'\*,:;\)]*}
  doc=""
  if [[ $word == *.md ]]; then
    dir_of "$file"
    for c in "$dir/$word" "$word" "docs/${word##*/}"; do
      [ -f "$c" ] && { doc=$c; return; }
    done
  elif [[ $word =~ ^[A-Za-z0-9_-]+$ && -f docs/$word.md ]]; then
    doc=docs/$word.md
  else
    doc=$behaviour
  fi
}

# ---- 2. every § citation resolves
citations=0
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  match=${rest#*:}
  number=${match##*"$sect"}
  word=""
  [[ $match == *" $sect"* ]] && word=${match%% "$sect"*}
  resolve_doc "$file" "$word"
  citations=$((citations + 1))
  if [ -z "$doc" ]; then
    problems+=("$file:$line: '$match' names a document that does not exist")
    continue
  fi
  load_sections "$doc"
  [ -n "${sections["$doc|$number"]:-}" ] ||
    problems+=("$file:$line: '$match': $doc has no section $number")
done < <(grep -n -I -o -P '(?:[^\s\xc2]+ )?\xc2\xa7[0-9]+(?:\.[0-9]+)*' \
  -- "${files[@]}" || true)

# ---- 3. anchors of the citation scheme that links point at
declare -A anchors=() anchors_loaded=()
load_anchors() {
  local doc=$1 a
  [ -n "${anchors_loaded[$doc]:-}" ] && return 0
  anchors_loaded[$doc]=1
  while IFS= read -r a; do
    anchors["$doc|$a"]=1
  done < <(grep -o -P '<a id="\K[^"]+(?="></a>)' "$doc" || true)
  return 0
}
links=0
mds=()
for f in "${files[@]}"; do [[ $f == *.md ]] && mds+=("$f"); done
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  link=${rest#*:}
  link=${link#\](}
  link=${link%)}
  path=${link%%#*}
  anchor=${link#*#}
  target=$file
  dir_of "$file"
  [ -n "$path" ] && target=$dir/$path
  links=$((links + 1))
  if [ ! -f "$target" ]; then
    problems+=("$file:$line: link to $link: no such file")
  elif load_anchors "$target" && [ -z "${anchors["$target|$anchor"]:-}" ]; then
    problems+=("$file:$line: link to $link: no anchor '$anchor' there")
  fi
done < <(grep -n -o -P '\]\([^)\s]*#(?:s[0-9]+(?:\.[0-9]+)*|invariant-[0-9]+)\)' \
  -- "${mds[@]}" || true)

# ---- 4. "invariant N" names one of docs/invariants.md
invariant_refs=0
load_sections "$invariants"
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  number=${rest##* }
  invariant_refs=$((invariant_refs + 1))
  [ -n "${sections["$invariants|$number"]:-}" ] ||
    problems+=("$file:$line: invariant $number is not in $invariants")
done < <(grep -n -I -o -i -P '\binvariant [0-9]+\b' -- "${files[@]}" || true)

# ---- 5. numbered headings carry their anchors
check_anchors() {
  local doc=$1 prefix=$2
  awk -v doc="$doc" -v prefix="$prefix" '
    /^#+ [0-9]+(\.[0-9]+)*[. ]/ {
      n = $2; sub(/\.$/, "", n)
      want = "<a id=\"" prefix n "\"></a>"
      if (prev != want) print doc ":" NR ": heading " n " without " want
    }
    NF { prev = $0 }' "$doc"
}
while IFS= read -r hit; do
  problems+=("$hit")
done < <(check_anchors "$behaviour" s; check_anchors "$invariants" invariant-)

if [ "$citations" -eq 0 ] || [ "$links" -eq 0 ] || [ "$invariant_refs" -eq 0 ]; then
  problems+=("found $citations citations, $links links, $invariant_refs invariant references: the scan itself is broken")
fi

if [ ${#problems[@]} -gt 0 ]; then
  echo "FAIL: ${#problems[@]} reference problem(s) (see docs/README.md):"
  printf '  %s\n' "${problems[@]}"
  exit 1
fi
echo "PASS: ${#files[@]} files: $citations section citations, $links anchor links, $invariant_refs invariant references resolve; no outside documents"
