#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/packaging/install.sh BUILD PREFIX — `cmake --install BUILD --prefix
# PREFIX` puts every product and file where packaging/CMakeLists.txt says,
# the pkg-config file points at them from wherever the prefix is, the CLI
# built without OTF2 (and without libcurl) says so, and libnccl-profiler.so appears only when
# its component is asked for.
set -euo pipefail
build=$1 prefix=$2
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$prefix" "$prefix-default-name"
cmake --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install"
cd "$prefix"
for f in lib/libnccl-profiler-cclscope.so bin/cclscope bin/ncclemu \
  libexec/cclscope/ncclemu libexec/cclscope/libncclemu-cuda.so \
  include/cclscope/control.h share/pkgconfig/cclscope.pc \
  lib/cmake/cclscope/cclscopeConfig.cmake \
  lib/cmake/cclscope/cclscopeConfigVersion.cmake \
  share/man/man1/cclscope.1.gz share/man/man1/cclscope-check.1.gz \
  share/man/man1/cclscope-summary.1.gz share/man/man1/ncclemu.1.gz \
  share/bash-completion/completions/cclscope \
  share/cclscope/prometheus/cclscope-rules.yml \
  share/cclscope/prometheus/scrape-slurm.yml share/cclscope/prometheus/cclscope-slurm-targets \
  share/cclscope/otel/otel-collector.yaml \
  share/cclscope/clickhouse/schema.sql share/cclscope/clickhouse/distributed.sql \
  share/cclscope/clickhouse/timing_columns.txt \
  share/cclscope/clickhouse/queries/collectives.sql \
  share/cclscope/clickhouse/queries/stragglers_ranks.sql \
  share/cclscope/clickhouse/queries/stragglers_gpus.sql \
  share/man/man1/cclscope-sql.1.gz \
  share/doc/cclscope/README.md share/doc/cclscope/docs/deploy.md \
  share/doc/cclscope/copyright share/doc/cclscope/LICENSE; do
  [ -e "$f" ] || fail "$prefix/$f missing"
done
[ -L bin/ncclemu ] || fail "bin/ncclemu is not a link"
[ "$(readlink bin/ncclemu)" = ../libexec/cclscope/ncclemu ] ||
  fail "bin/ncclemu -> $(readlink bin/ncclemu)"
# NCCL's default name only on request; the emulated libcuda.so.1 never in lib/.
[ ! -e lib/libnccl-profiler.so ] || fail "libnccl-profiler.so installed by default"
[ ! -e lib/libncclemu-cuda.so ] || fail "the emulated CUDA driver is in lib/"
# The Debian packages' own doc folders and lintian override are theirs
# (packaging/debian.cmake), not a plain install's.
for d in share/doc/libnccl-profiler-cclscope share/doc/cclscope-tools \
  share/doc/cclscope-dev share/lintian; do
  [ ! -e "$d" ] || fail "$d installed outside the Debian packages"
done

# pkg-config, relocated: the plugin path is inside this prefix.
plugin=$(PKG_CONFIG_PATH=$prefix/share/pkgconfig PKG_CONFIG_LIBDIR=/nonexistent \
  pkg-config --variable=plugin cclscope) || fail "pkg-config cclscope"
[ "$(realpath "$plugin")" = "$(realpath lib/libnccl-profiler-cclscope.so)" ] ||
  fail "pkg-config plugin = $plugin"
cflags=$(PKG_CONFIG_PATH=$prefix/share/pkgconfig PKG_CONFIG_LIBDIR=/nonexistent \
  pkg-config --cflags cclscope)
cflags=${cflags%% *}
[ "$(realpath "${cflags#-I}")" = "$(realpath include)" ] || fail "cflags = $cflags"

# The installed programs run; the CLI without libotf2 says so, exit 1.
# (Output read whole before grep: `grep -q` stops at the first match, and a
# writer still writing then dies of SIGPIPE, which pipefail counts.)
version=$(bin/cclscope --version) || fail "cclscope --version: exit $?"
grep -q '^cclscope [0-9]' <<<"$version" || fail "cclscope --version"
emu_help=$(bin/ncclemu --help) || fail "ncclemu --help: exit $?"
grep -q '^usage: ncclemu' <<<"$emu_help" || fail "ncclemu --help"
set +e
msg=$(bin/cclscope otf2 -o "$prefix/otf2" "$prefix" 2>&1)
rc=$?
set -e
[ $rc -eq 1 ] || fail "cclscope otf2 without OTF2: exit $rc"
grep -q "built without OTF2 support" <<<"$msg" || fail "otf2 said: $msg"
# ... and so does `load` without libcurl.
set +e
msg=$(bin/cclscope load --clickhouse http://127.0.0.1:9 "$prefix" 2>&1)
rc=$?
set -e
[ $rc -eq 1 ] || fail "cclscope load without libcurl: exit $rc"
grep -q "built without libcurl" <<<"$msg" || fail "load said: $msg"

# The opt-in link to NCCL's default name, asked for by component.
cmake --install "$build" --prefix "$prefix-default-name" \
  --component nccl-default-name >/dev/null || fail "component install"
link=$prefix-default-name/lib/libnccl-profiler.so
[ -L "$link" ] || fail "$link is not a link"
[ "$(readlink "$link")" = libnccl-profiler-cclscope.so ] ||
  fail "$link -> $(readlink "$link")"
echo "install: OK"
