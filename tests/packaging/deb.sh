#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/packaging/deb.sh BUILD WORK — `cpack -G DEB` in the Release build
# makes the packages of packaging/debian.cmake: libnccl-profiler-cclscope
# (the plugin alone), cclscope-tools, cclscope-dev and the two -dbgsym
# .ddeb. Each must be lintian clean: `lintian --fail-on error,warning`
# (overrides in a package are honoured, each justified in its file), all
# tags down to info shown. Then, from the packages' control fields and
# contents: the plugin package depends on libc only and holds the plugin,
# stripped, whose debug file is in the plugin's -dbgsym package under
# /usr/lib/debug/.build-id/, and activates the ldconfig trigger; every
# package carries its copyright and changelog.Debian.gz (a -dbgsym package
# through its doc folder, a link to its package's); Maintainer is the
# build's CCLSCOPE_PACKAGE_MAINTAINER.
# Last, the three packages unpacked with dpkg -x into a throwaway root
# (never installed on the machine): its ncclemu drives its plugin to a
# trace that its cclscope checks.
set -euo pipefail
build=$1 work=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v lintian >/dev/null ||
  fail "lintian is not installed (scripts/install-deps.sh installs it)"
rm -rf "$work"
mkdir -p "$work"
(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB"; }

# --- the packages: names, version, architecture ------------------------------
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")
revision=$(sed -n 's/^CCLSCOPE_PACKAGE_REVISION:[A-Z]*=//p' "$build/CMakeCache.txt")
maintainer=$(sed -n 's/^CCLSCOPE_PACKAGE_MAINTAINER:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -n "$version" ] && [ -n "$revision" ] && [ -n "$maintainer" ] ||
  fail "version '$version', revision '$revision', maintainer '$maintainer' in $build/CMakeCache.txt"
arch=$(dpkg --print-architecture)
full=$version-$revision
plugin_pkg=libnccl-profiler-cclscope
packages=("$plugin_pkg" cclscope-tools cclscope-dev)
want=("${plugin_pkg}_${full}_$arch.deb" "cclscope-tools_${full}_$arch.deb"
  "cclscope-dev_${full}_$arch.deb" "${plugin_pkg}-dbgsym_${full}_$arch.ddeb"
  "cclscope-tools-dbgsym_${full}_$arch.ddeb")
got=$(find "$work/out" -maxdepth 1 \( -name '*.deb' -o -name '*.ddeb' \) -printf '%f\n' | sort)
[ "$got" = "$(printf '%s\n' "${want[@]}" | sort)" ] ||
  fail "packages: $(echo $got), want ${want[*]}"
deb() { echo "$work/out/${1}_${full}_$arch.deb"; }
ddeb() { echo "$work/out/${1}-dbgsym_${full}_$arch.ddeb"; }

# --- lintian on every package ------------------------------------------------
# --allow-root: CI runs as root; the packages are only read.
for f in "${want[@]}"; do
  if ! out=$(lintian --allow-root --fail-on error,warning --display-info \
    --tag-display-limit 0 "$work/out/$f" 2>&1); then
    echo "$out"
    fail "lintian on $f"
  fi
  [ -z "$out" ] || { echo "lintian on $f (info only):"; echo "$out"; }
done

# --- control fields --------------------------------------------------------------
field() { dpkg-deb -f "$1" "$2"; }
for p in "${packages[@]}"; do
  [ "$(field "$(deb "$p")" Package)" = "$p" ] || fail "$p: Package field"
  [ "$(field "$(deb "$p")" Version)" = "$full" ] || fail "$p: Version field"
  [ "$(field "$(deb "$p")" Maintainer)" = "$maintainer" ] || fail "$p: Maintainer"
done
[[ $maintainer =~ ^[^\<]+\ \<[^@\>]+@[^@\>]+\>$ ]] || fail "Maintainer '$maintainer' has no email"
depends=$(field "$(deb "$plugin_pkg")" Depends)
[[ $depends =~ ^libc6( \(>= [0-9.]+\))?$ ]] || fail "$plugin_pkg Depends: $depends"
tools_depends=$(field "$(deb cclscope-tools)" Depends)
[[ $tools_depends =~ ^libc6( \(>= [0-9.]+\))?$ ]] ||
  fail "cclscope-tools Depends (built without OTF2): $tools_depends"
[ "$(field "$(deb cclscope-dev)" Depends)" = "$plugin_pkg (= $full)" ] ||
  fail "cclscope-dev Depends: $(field "$(deb cclscope-dev)" Depends)"
for p in "$plugin_pkg" cclscope-tools; do
  [ "$(field "$(ddeb "$p")" Package)" = "$p-dbgsym" ] || fail "$p-dbgsym: Package"
  [ "$(field "$(ddeb "$p")" Depends)" = "$p (= $full)" ] ||
    fail "$p-dbgsym Depends: $(field "$(ddeb "$p")" Depends)"
done

# --- contents --------------------------------------------------------------------
files() { # package file: its regular files and links, without the leading ./
  dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' | sort
}
plugin_files=$(files "$(deb "$plugin_pkg")")
want_plugin=$(printf '%s\n' usr/lib/libnccl-profiler-cclscope.so \
  usr/share/doc/$plugin_pkg/changelog.Debian.gz usr/share/doc/$plugin_pkg/copyright \
  usr/share/lintian/overrides/$plugin_pkg | sort)
[ "$plugin_files" = "$want_plugin" ] || fail "$plugin_pkg holds: $(echo $plugin_files)"
tools_files=$(files "$(deb cclscope-tools)")
for f in usr/bin/cclscope usr/bin/ncclemu usr/libexec/cclscope/ncclemu \
  usr/libexec/cclscope/libncclemu-cuda.so usr/share/man/man1/cclscope.1.gz \
  usr/share/man/man1/cclscope-summary.1.gz usr/share/man/man1/ncclemu.1.gz \
  usr/share/bash-completion/completions/cclscope \
  usr/share/cclscope/prometheus/cclscope-rules.yml usr/share/doc/cclscope/README.md \
  usr/share/cclscope/prometheus/scrape-slurm.yml usr/share/cclscope/prometheus/scrape-kubernetes.yml \
  usr/share/cclscope/prometheus/cclscope-slurm-targets usr/share/cclscope/otel/otel-collector.yaml \
  usr/share/cclscope/clickhouse/schema.sql usr/share/cclscope/clickhouse/distributed.sql \
  usr/share/cclscope/clickhouse/queries/stragglers_ranks.sql \
  usr/share/doc/cclscope-tools/copyright usr/share/doc/cclscope-tools/changelog.Debian.gz; do
  grep -qxF "$f" <<<"$tools_files" || fail "$f not in cclscope-tools"
done
! grep -q '^usr/lib/' <<<"$tools_files" || fail "cclscope-tools has files in usr/lib/"
! grep -q '\.1$' <<<"$tools_files" || fail "cclscope-tools has uncompressed man pages"
dev_files=$(files "$(deb cclscope-dev)")
want_dev=$(printf '%s\n' usr/include/cclscope/control.h usr/share/pkgconfig/cclscope.pc \
  usr/lib/cmake/cclscope/cclscopeConfig.cmake usr/lib/cmake/cclscope/cclscopeConfigVersion.cmake \
  usr/share/doc/cclscope-dev/changelog.Debian.gz usr/share/doc/cclscope-dev/copyright | sort)
[ "$dev_files" = "$want_dev" ] || fail "cclscope-dev holds: $(echo $dev_files)"

root=$work/root
for p in "${packages[@]}"; do dpkg-deb -x "$(deb "$p")" "$root"; done
for p in "${packages[@]}"; do
  cmp -s "$root/usr/share/doc/$p/copyright" "$(dirname "$0")/../../packaging/copyright" ||
    fail "$p: copyright differs from packaging/copyright"
  zcat "$root/usr/share/doc/$p/changelog.Debian.gz" | head -n 1 |
    grep -qxF "cclscope ($full) unstable; urgency=medium" || fail "$p: changelog.Debian.gz"
done
[ ! -e "$root/usr/lib/libnccl-profiler.so" ] || fail "the packages install NCCL's default name"
# The plugin (soname, in the loader's path) activates the ldconfig trigger
# and runs no maintainer script.
[ "$(dpkg-deb -I "$(deb "$plugin_pkg")" triggers)" = "activate-noawait ldconfig" ] ||
  fail "$plugin_pkg: triggers"
for script in preinst postinst prerm postrm; do
  ! dpkg-deb -I "$(deb "$plugin_pkg")" $script >/dev/null 2>&1 || fail "$plugin_pkg has a $script"
done

# --- stripped, and the debug symbols kept in -dbgsym ------------------------------
sections() { readelf -W -S "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\).*/\1/p'; }
build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: //p'; }
for pair in "$plugin_pkg:usr/lib/libnccl-profiler-cclscope.so" \
  "cclscope-tools:usr/libexec/cclscope/ncclemu"; do
  p=${pair%%:*} elf=$root/${pair#*:}
  s=$(sections "$elf")
  ! grep -qE '^\.(symtab|debug_)' <<<"$s" || fail "$elf is not stripped: $(echo $s)"
  grep -qx .gnu_debuglink <<<"$s" || fail "$elf has no .gnu_debuglink"
  id=$(build_id "$elf")
  [ ${#id} -ge 16 ] || fail "$elf has no build id"
  debug=usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
  grep -qxF "$debug" <<<"$(files "$(ddeb "$p")")" || fail "$p-dbgsym lacks $debug"
  dbg=$work/dbgsym-$p
  dpkg-deb -x "$(ddeb "$p")" "$dbg"
  # Its copyright and changelog are its package's, as in Debian's own.
  [ "$(readlink "$dbg/usr/share/doc/$p-dbgsym")" = "$p" ] ||
    fail "$p-dbgsym: usr/share/doc/$p-dbgsym is not a link to $p"
  s=$(sections "$dbg/$debug")
  # The Release build here is compiled with -g (release_build.sh).
  grep -qx .symtab <<<"$s" && grep -qx .debug_info <<<"$s" ||
    fail "$debug lacks the symbol table or the debug information: $(echo $s)"
  [ "$(build_id "$dbg/$debug")" = "$id" ] || fail "$debug: another build id"
done

# --- the unpacked packages work together -----------------------------------------
traces=$work/traces
CCLSCOPE_DIR=$traces CCLSCOPE_SUMMARY=off \
  NCCL_PROFILER_PLUGIN=$root/usr/lib/libnccl-profiler-cclscope.so \
  "$root/usr/bin/ncclemu" --scenario single-node --quiet --max-callback-ms 5000 ||
  fail "ncclemu with the packaged plugin"
n=$(find "$traces" -name '*.jsonl' | wc -l)
[ "$n" -ge 1 ] || fail "no trace written in $traces"
out=$("$root/usr/bin/cclscope" check "$traces") || { echo "$out"; fail "cclscope check"; }
grep -q " 0 errors, .* — OK" <<<"$out" || fail "check: $out"
echo "deb: ${#want[@]} packages lintian clean ($plugin_pkg: $depends), $n traces checked"
