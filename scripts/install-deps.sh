#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/install-deps.sh — install what building and testing cclscope needs
# on Debian 12 (bookworm). Idempotent: packages already installed are not
# touched, so a second run takes a second. Uses sudo when not root.
#
# usage: scripts/install-deps.sh [--demo]
#   (default)  everything the build and the whole test suite need (PACKAGES);
#   --demo     only what scripts/demo.sh builds with (DEMO_PACKAGES): a C
#              compiler, the C library's headers, CMake and Ninja. The
#              plugin, the CLI and ncclemu need nothing else (pkg-config,
#              OTF2, cmocka and cJSON are optional in CMakeLists.txt), and
#              no package of this list or its dependencies ships a service.
# A service of a package installed here (Debian's prometheus enables and
# starts prometheus.service) is never started by the install: the tests run
# their own server. The install runs with a policy-rc.d that forbids
# starting services when the system has none of its own, and a unit it
# enabled is disabled again (see quiet_services below).
set -euo pipefail
profile=full
case ${1:-} in
"") ;;
--demo) profile=demo ;;
-h | --help) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "install-deps: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

# What scripts/demo.sh needs: build the plugin, the CLI and ncclemu.
DEMO_PACKAGES=(gcc libc6-dev cmake ninja-build)

# Build and unit tests; exporter end-to-end tests (a real Prometheus
# server, curl, libcurl for the plugin's dlopen'ed OTLP push, node for the
# OTLP schema-validating receiver); groff and man render the generated man
# pages (tests/packaging/man.sh). Debian's chromium, for the browser test
# of `cclscope view`, is installed at the end (see there).
PACKAGES=(
  build-essential cmake ninja-build pkg-config clang
  libcmocka-dev libcjson-dev valgrind
  clang-format prometheus curl libcurl4 python3
  libopen-trace-format2-dev otf2-tools
  groff-base man-db
  lintian # the Debian packages must be lintian clean (tests/packaging/deb.sh)
  zstd # tests of compressed traces (zstd -t, zstd -d)
  libcurl4-openssl-dev # `cclscope load` (ClickHouse over HTTP)
)
# node and npm may come from Debian or from another node distribution that
# bundles npm (NodeSource): only ask Debian when the commands are missing.
command -v node >/dev/null || PACKAGES+=(nodejs)
command -v npm >/dev/null || PACKAGES+=(npm)
if [ "$profile" = demo ]; then
  PACKAGES=("${DEMO_PACKAGES[@]}")
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
apt_get_install() { # packages...: install, updating the lists once if needed
  $SUDO apt-get install -y --no-install-recommends "$@" ||
    { $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends "$@"; }
}

# Services of the packages installed here stay stopped and disabled. While
# apt runs, /usr/sbin/policy-rc.d (Debian's policy layer, read by
# invoke-rc.d and deb-systemd-invoke) answers 101, "action forbidden", to
# every start; it is put there only when the system has none, and removed
# after. Units a package newly installed here enabled are disabled again
# (deb-systemd-helper, which also remembers it for the package's upgrades).
POLICY_RC_D=/usr/sbin/policy-rc.d
policy_rc_d_ours=0
forbid_service_starts() {
  if [ -e "$POLICY_RC_D" ]; then return 0; fi
  printf '#!/bin/sh\n# written by cclscope scripts/install-deps.sh while it installs packages\nexit 101\n' |
    $SUDO tee "$POLICY_RC_D" >/dev/null
  $SUDO chmod 755 "$POLICY_RC_D"
  policy_rc_d_ours=1
}
allow_service_starts() {
  if [ "$policy_rc_d_ours" -eq 1 ]; then $SUDO rm -f "$POLICY_RC_D"; fi
  policy_rc_d_ours=0
}
trap allow_service_starts EXIT
installed_list() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null | awk '$1 == "ii" { print $2 }' | sort; }
quiet_services() { # packages (theirs and their dependencies' units): disable what they enabled
  command -v deb-systemd-helper >/dev/null || return 0
  local p unit
  for p in "$@"; do
    for unit in $(dpkg-query -L "$p" 2>/dev/null | grep -E '^(/usr)?/lib/systemd/system/[^/]+[.](service|socket|timer)$' | xargs -r -n1 basename); do
      # deb-systemd-helper acts only for the package named as dpkg names it
      # to its maintainer scripts
      if $SUDO env DPKG_MAINTSCRIPT_PACKAGE="$p" deb-systemd-helper --quiet was-enabled "$unit"; then
        echo "install-deps: $unit (package $p) stays stopped and disabled: the tests run what they need themselves"
        $SUDO env DPKG_MAINTSCRIPT_PACKAGE="$p" deb-systemd-helper disable "$unit" ||
          echo "install-deps: WARNING: could not disable $unit" >&2
      fi
    done
  done
}
apt_install() { # packages...: install them, no service started or left enabled
  local before rc=0
  before=$(installed_list)
  forbid_service_starts
  apt_get_install "$@" || rc=$?
  allow_service_starts
  # shellcheck disable=SC2046 # one package name per word
  quiet_services $(comm -13 <(echo "$before") <(installed_list))
  return $rc
}

missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
    echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  apt_install "${missing[@]}"
fi

# Debian's clickhouse-server (18.16) for the tests of `cclscope load`
# (tests/clickhouse/), which start servers of their own as the current user.
# The package enables and starts its system service when installed:
# apt_install refuses the start and disables the unit after, so that no
# ClickHouse runs or boots because of this script. Not for the demo.
if [ "$profile" = full ] && ! installed clickhouse-server; then
  if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
    echo "install-deps: need root or sudo to install: clickhouse-server" >&2
    exit 1
  fi
  echo "install-deps: installing clickhouse-server (its service neither started nor enabled)"
  apt_install clickhouse-server
fi

# Debian's chromium runs the browser test of `cclscope view` (driven by npm
# playwright-core, which never downloads a browser of its own). Where no
# chromium package can be installed the suite goes on: that test then says
# so and is skipped; where it can, the test requires it.
if [ "$profile" = full ] && ! installed chromium; then
  if [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; then
    echo "install-deps: installing chromium"
    apt_install chromium ||
      echo "install-deps: WARNING: chromium cannot be installed here; the browser test of 'cclscope view' will fail unless no chromium package exists at all (then it is skipped)" >&2
  else
    echo "install-deps: WARNING: chromium is missing and there is no root or sudo to install it" >&2
  fi
fi
