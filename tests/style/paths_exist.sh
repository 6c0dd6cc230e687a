#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/style/paths_exist.sh — every path the repository names in its
# documentation, build files, scripts and C comments exists.
#
# Fails listing each reference that names nothing in the tree. It reads
#   - Markdown files (docs/, every README.md),
#   - CMake files (CMakeLists.txt, *.cmake),
#   - shell and Python scripts (*.sh, *.py, and extensionless files that
#     start with a #! line for bash, sh or python),
#   - the comments (only) of C files (*.c, *.h),
# and checks
#   1. repository paths: `src/...`, `tests/...`, `docs/...`, `bench/...`,
#      `web/...`, `scripts/...`, `include/...` that end in a file extension
#      (`src/plugin/hot/emit.h`) or a slash (`src/emu/scenarios/`), also
#      when a comment wraps one after a slash; a path led by `../` resolves
#      from the naming file's folder; a pattern (`src/plugin/hot/abi_*.c`)
#      must match a file;
#   2. in CMake files, `${CMAKE_SOURCE_DIR}/X`, `${PROJECT_SOURCE_DIR}/X`
#      (from the top) and `${CMAKE_CURRENT_SOURCE_DIR}/X` (from the file's
#      folder);
#   3. in Markdown files, relative link targets `[text](X)` (from the
#      file's folder, without the `#anchor`).
# Not checked, so no false alarms: paths inside URLs or behind another
# folder (`https://.../src/x.c`, `$build/tests/x.so`: a `/` or `$` before
# the path), paths built at run time or with a placeholder (a `$`, `{`, `<`
# or `%` right after them: `tests/$name.so`, `src/<part>/x.c`), bare words
# without an extension or slash (`src/plugin`, which prose uses for the
# folder and for the component alike), text in C code (only comments), and
# the paths of other projects' trees that docs/nccl-behaviour.md and
# docs/integrations.md cite (FOREIGN_* below).
# A reference that must stay although it names nothing goes into the
# ignore list below, with the file that makes it and the reason.
# usage: paths_exist.sh [REPO_ROOT]   (PATHS_EXIST_MIN_REFS: how few
# references mean the scan itself is broken, 200 unless set; its test,
# paths_exist_teeth.sh, sets it for a small tree)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
exec python3 - "$root" <<'PY'
import glob, os, re, subprocess, sys

root = os.path.abspath(sys.argv[1])
# Files not read, and why.
SKIP = {
    "tests/style/paths_exist.sh": "this checker: its comments show the forms",
    "tests/style/paths_exist_teeth.sh": "its test: a made-up tree of missing paths",
}

# (file that names it, path it names): why it stays.
IGNORE = {
    ("tests/style/no_outside_refs.sh", "docs/x.md"):
        "a made-up name showing the citation syntax",
}

# Other projects' trees the documents cite by their own paths (NCCL's and
# RCCL's sources, Score-P's): a path under one of these folders or with one
# of these extensions is theirs. The repository must have no such file
# (checked below), or the rule would hide a reference to one of ours.
FOREIGN_FOLDERS = {
    "src/include/": "NCCL's and RCCL's headers",
    "src/device/": "NCCL's device code",
    "src/transport/": "NCCL's transports",
    "src/adapters/": "Score-P's adapters",
}
FOREIGN_EXTENSIONS = {
    ".cc": "NCCL's C++ sources (the repository has no C++)",
    ".rst": "NCCL's documentation sources",
}

def foreign(p):
    return (p.startswith(tuple(FOREIGN_FOLDERS))
            or p.rstrip("/").endswith(tuple(FOREIGN_EXTENSIONS)))

# ---- the files: tracked (or, outside a git checkout, all but builds)
def tree_files():
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                             capture_output=True, check=True).stdout
        if subprocess.run(["git", "-C", root, "rev-parse", "--show-prefix"],
                          capture_output=True, check=True).stdout.strip():
            raise OSError("root is inside another checkout")
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x not in (".git", "node_modules")
                       and not (d == root and x.startswith("build"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files

def kind_of(rel):
    name = os.path.basename(rel)
    if name.endswith(".md"):
        return "md"
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name.endswith((".sh", ".py")):
        return "script"
    if name.endswith((".c", ".h")):
        return "c"
    if "." not in name:
        try:
            with open(os.path.join(root, rel), "rb") as f:
                first = f.readline(200)
        except OSError:
            return None
        if re.match(rb"#!.*\b(ba)?sh\b|#!.*python", first):
            return "script"
    return None

# ---- C files: only their comments, kept at their line numbers
C_TOKENS = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
def c_comments(text):
    out = []
    last = 0
    for m in C_TOKENS.finditer(text):
        out.append(re.sub(r"[^\n]", " ", text[last:m.start()]))
        tok = m.group(0)
        out.append(tok if tok.startswith("/") else re.sub(r"[^\n]", " ", tok))
        last = m.end()
    out.append(re.sub(r"[^\n]", " ", text[last:]))
    return "".join(out)

PATH_CHARS = r"[A-Za-z0-9_.+/-]"
RUNTIME = set("$*{<%")  # after a path: built at run time, or a pattern
# 1. a repository path, not behind another path, a URL or a variable
REPO_PATH = re.compile(r"(?<![A-Za-z0-9_.+/$@:-])((?:\.\./)*)"
                       r"((?:src|tests|docs|bench|web|scripts|include)/"
                       r"[A-Za-z0-9_.+/*-]*)")
# the rest of a path that a comment wrapped after a slash ("src/plugin/" at
# the end of a line, "completion.c" at the start of the next, after the
# comment's leader)
WRAPPED = re.compile(r"\n[ \t]*(?:\*|#+|//)?[ \t]*([A-Za-z0-9_+-][A-Za-z0-9_.+/-]*)")
# 2. CMake's source-folder variables
CMAKE_PATH = re.compile(r"\$\{(CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR|"
                        r"CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/("
                        + PATH_CHARS + r"+)")
# 3. Markdown links
MD_LINK = re.compile(r"\]\(([^()\s]+)\)")

def looks_like_path(p):
    last = p.rstrip("/").rsplit("/", 1)[-1]
    return p.endswith("/") or re.search(r"\.[A-Za-z0-9]+$", last) is not None

def exists(base, p):
    full = os.path.normpath(os.path.join(base, p))
    if not (full == root or full.startswith(root + os.sep)):
        return False
    if "*" in p:  # a pattern names something when it matches a file
        return bool(glob.glob(full + ("/" if p.endswith("/") else "")))
    return os.path.isdir(full) if p.endswith("/") else os.path.exists(full)

def references(rel, text, kind):
    """(line, path as written, folder it resolves from) for each reference."""
    here = os.path.dirname(os.path.join(root, rel))
    line_of = lambda pos: text.count("\n", 0, pos) + 1
    for m in REPO_PATH.finditer(text):
        ups, p = m.group(1), m.group(2)
        if m.end() < len(text) and text[m.end()] in RUNTIME:
            continue
        p = p.rstrip(".")
        if p.endswith("/"):
            rest = WRAPPED.match(text, m.end())
            if rest and looks_like_path(p + rest.group(1).rstrip(".")):
                p += rest.group(1).rstrip(".")  # wrapped at its last slash
        if not looks_like_path(p):
            continue
        yield line_of(m.start()), ups + p, here if ups else root
    if kind == "cmake":
        for m in CMAKE_PATH.finditer(text):
            if m.end() < len(text) and text[m.end()] in RUNTIME:
                continue
            base = root if m.group(1) in ("CMAKE_SOURCE_DIR", "PROJECT_SOURCE_DIR") else here
            yield line_of(m.start()), m.group(0), os.path.join(base, m.group(2))
    if kind == "md":
        for m in MD_LINK.finditer(text):
            target = m.group(1).split("#", 1)[0]
            if not target or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target):
                continue  # an anchor in the same file, a URL, mailto:
            if any(c in RUNTIME for c in target):
                continue
            yield line_of(m.start()), target, here

def check(rel, kind):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    if kind == "c":
        text = c_comments(text)
    for line, written, base in references(rel, text, kind):
        if foreign(written):
            continue
        if written.startswith("${"):
            ok = os.path.exists(base)  # base is the whole resolved path
        else:
            ok = exists(base, written)
        yield line, written, ok

files = tree_files()
if not files:
    sys.exit("FAIL: no files found under %s" % root)
problems, refs, seen_ignores, scanned = [], 0, set(), 0
for rel in files:
    if foreign(rel) and "node_modules/" not in rel:
        problems.append("%s: the repository now has a file the foreign-tree "
                        "rule skips: narrow FOREIGN_FOLDERS / FOREIGN_EXTENSIONS" % rel)
for rel in sorted(files):
    if rel in SKIP or "node_modules/" in rel or not os.path.isfile(os.path.join(root, rel)):
        continue
    kind = kind_of(rel)
    if kind is None:
        continue
    scanned += 1
    for line, written, ok in check(rel, kind):
        refs += 1
        if ok:
            continue
        key = (rel, written)
        if key in IGNORE:
            seen_ignores.add(key)
            continue
        problems.append("%s:%d: %s does not exist" % (rel, line, written))

# An ignore entry that matches nothing any more is stale itself.
for key in sorted(set(IGNORE) - seen_ignores):
    problems.append("%s: ignore list entry for %s matches nothing: remove it"
                    % key)

min_refs = int(os.environ.get("PATHS_EXIST_MIN_REFS", "200"))
if refs < min_refs:
    problems.append("only %d references found in %d files: the scan itself is broken"
                    % (refs, scanned))
if problems:
    print("FAIL: %d path reference(s) name nothing in the tree:" % len(problems))
    for p in problems:
        print("  " + p)
    sys.exit(1)
print("PASS: %d files, %d path references: all exist (%d ignored, each with its reason)"
      % (scanned, refs, len(IGNORE)))
PY
