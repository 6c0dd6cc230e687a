# SPDX-License-Identifier: Apache-2.0
# packaging/debian.cmake — the Debian packages that `cpack -G DEB` makes in
# a build folder (packaging/README.md has the why of each choice):
#   libnccl-profiler-cclscope   the plugin alone (install component plugin):
#                               what a GPU node needs, libc only
#   cclscope-tools              the CLI, ncclemu and its emulated CUDA
#                               driver, man pages, completion, the Prometheus
#                               rules, README and docs (component tools)
#   cclscope-dev                control.h, the pkg-config file, the CMake
#                               package (component dev)
#   <package>-dbgsym            the debug symbols of the first two (.ddeb),
#                               corrected by debian_repack.cmake
# Each package also gets its own /usr/share/doc/<package>/ with the
# copyright file and changelog.Debian.gz, and the plugin its lintian
# override: install components <package>-debian, left out of a plain
# `cmake --install` (EXCLUDE_FROM_ALL), grouped by CPack with the
# component they document. Included by packaging/CMakeLists.txt.

set(CCLSCOPE_PACKAGE_MAINTAINER
    "cclscope developers <cclscope@users.noreply.github.com>" CACHE STRING
    "Maintainer field of the Debian packages: NAME <EMAIL> of whoever builds \
and distributes them")
# The Debian revision of the packages (VERSION-REVISION). 0 before the
# name says the packages are not Debian's own (as Ubuntu's 0ubuntu1 does:
# no Debian upload, no ITP bug to close), cclscope1 the first build of this
# version; a site that rebuilds it with other settings raises the number.
set(CCLSCOPE_PACKAGE_REVISION 0cclscope1 CACHE STRING
    "Debian revision of the packages (their version is VERSION-REVISION)")

set(deb_plugin libnccl-profiler-cclscope)
set(deb_tools cclscope-tools)
set(deb_dev cclscope-dev)
set(deb_version ${PROJECT_VERSION}-${CCLSCOPE_PACKAGE_REVISION})
set(deb_packages ${deb_plugin} ${deb_dev})
if(CCLSCOPE_BUILD_CLI OR CCLSCOPE_BUILD_EMU)
  list(APPEND deb_packages ${deb_tools})
endif()

# --- what every package carries besides its files ---------------------------
# changelog.Debian.gz: one entry for this version, signed by the
# maintainer, dated by SOURCE_DATE_EPOCH when set (string(TIMESTAMP) reads
# it), gzip -9n.
set(deb_dir ${CMAKE_CURRENT_BINARY_DIR}/debian)
string(TIMESTAMP deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(CONFIGURE OUTPUT ${deb_dir}/changelog.Debian @ONLY CONTENT
"cclscope (@deb_version@) unstable; urgency=medium

  * cclscope @PROJECT_VERSION@, packaged by CPack from its build folder
    (packaging/debian.cmake in the source).

 -- @CCLSCOPE_PACKAGE_MAINTAINER@  @deb_date@
")
if(CCLSCOPE_GZIP)
  add_custom_command(
    OUTPUT ${deb_dir}/changelog.Debian.gz
    COMMAND ${CCLSCOPE_GZIP} -9nkf ${deb_dir}/changelog.Debian
    DEPENDS ${deb_dir}/changelog.Debian
    COMMENT "Debian changelog"
    VERBATIM)
  add_custom_target(cclscope-deb-changelog ALL
                    DEPENDS ${deb_dir}/changelog.Debian.gz)
endif()
foreach(pkg IN LISTS deb_packages)
  set(docs ${CMAKE_CURRENT_SOURCE_DIR}/copyright)
  if(CCLSCOPE_GZIP)
    list(APPEND docs ${deb_dir}/changelog.Debian.gz)
  endif()
  install(FILES ${docs} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg}
          COMPONENT ${pkg}-debian EXCLUDE_FROM_ALL)
endforeach()
# The plugin's one lintian override, justified in the file itself.
install(FILES lintian/${deb_plugin}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
        COMPONENT ${deb_plugin}-debian EXCLUDE_FROM_ALL)
# The plugin has a soname and lies in the loader's path: its package
# activates dpkg's ldconfig trigger (once per dpkg run, after all packages
# are unpacked) rather than run ldconfig from maintainer scripts.
file(WRITE ${deb_dir}/triggers "activate-noawait ldconfig\n")

# --- packages: one per CPack component group ---------------------------------
set(CPACK_PACKAGE_NAME cclscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the cclscope authors")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put it before every
# package's own description (whose first line is its summary).
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${CCLSCOPE_PACKAGE_REVISION})
set(CPACK_DEBIAN_PACKAGE_SOURCE cclscope)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CCLSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/cclscope/cclscope")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Debug symbols, in a build compiled with -g (CMAKE_C_FLAGS=-g with
# Release, or RelWithDebInfo): every ELF file is split by CPack (objcopy
# --only-keep-debug into /usr/lib/debug/.build-id/XX/YYYY.debug of a
# <package>-dbgsym .ddeb, then --strip-unneeded and a debuglink), so the
# packaged programs are stripped and nothing is lost. A build without -g
# has no debug information to keep (a -dbgsym package of symbol tables
# alone is one lintian refuses): its programs are packaged stripped, and
# no -dbgsym package is made. packaging/debian_repack.cmake corrects with
# dpkg-deb what CPack writes wrong (the -dbgsym packages, the plugin's
# needless ldconfig scripts); without dpkg-deb, no -dbgsym packages and
# the programs are packaged as built.
string(TOUPPER "${CMAKE_BUILD_TYPE}" deb_build_type)
set(deb_flags " ${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${deb_build_type}} ")
if(deb_flags MATCHES " -g" AND NOT deb_flags MATCHES " -g0 ")
  set(deb_debug_info ON)
else()
  set(deb_debug_info OFF)
endif()
find_program(CCLSCOPE_DPKG_DEB dpkg-deb)
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE OFF)
set(CPACK_STRIP_FILES OFF)
if(CCLSCOPE_DPKG_DEB)
  set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_SOURCE_DIR}/debian_repack.cmake)
  set(CPACK_CCLSCOPE_DPKG_DEB ${CCLSCOPE_DPKG_DEB})
  if(deb_debug_info)
    set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
  else()
    set(CPACK_STRIP_FILES ON)
    message(STATUS "cclscope: built without -g: the Debian packages hold "
                   "stripped programs and no -dbgsym packages "
                   "(-DCMAKE_C_FLAGS=-g keeps the debug symbols there)")
  endif()
else()
  message(STATUS "cclscope: no dpkg-deb: the Debian packages hold the "
                 "programs as built, no -dbgsym packages")
endif()
# Depends from what the ELF files link, where dpkg-shlibdeps is there to
# say (libc for the plugin; libc and libotf2 when the CLI was built with
# it); otherwise libc.
find_program(CCLSCOPE_DPKG_SHLIBDEPS dpkg-shlibdeps)
set(deb_libc_depends "libc6 (>= 2.34)")

set(CPACK_COMPONENTS_ALL "")
function(cclscope_deb_package pkg section components)
  foreach(component IN LISTS components ITEMS ${pkg}-debian)
    string(TOUPPER ${component} up)
    set(CPACK_COMPONENT_${up}_GROUP ${pkg} PARENT_SCOPE)
  endforeach()
  set(CPACK_COMPONENTS_ALL ${CPACK_COMPONENTS_ALL} ${components} ${pkg}-debian
      PARENT_SCOPE)
  string(TOUPPER ${pkg} up)
  set(CPACK_DEBIAN_${up}_PACKAGE_NAME ${pkg} PARENT_SCOPE)
  set(CPACK_DEBIAN_${up}_PACKAGE_SECTION ${section} PARENT_SCOPE)
endfunction()

string(TOUPPER ${deb_plugin} plugin_up)
string(TOUPPER ${deb_tools} tools_up)
string(TOUPPER ${deb_dev} dev_up)

# The plugin: all a GPU node installs. With CCLSCOPE_INSTALL_NCCL_DEFAULT_NAME
# the libnccl-profiler.so link comes with it.
set(plugin_components plugin)
if(CCLSCOPE_INSTALL_NCCL_DEFAULT_NAME)
  list(APPEND plugin_components nccl-default-name)
endif()
cclscope_deb_package(${deb_plugin} libs "${plugin_components}")
set(CPACK_DEBIAN_${plugin_up}_DESCRIPTION
    "NCCL/RCCL profiler plugin that writes collective traces and metrics
cclscope is a profiler plugin for NCCL and RCCL: each process loads
/usr/${CMAKE_INSTALL_LIBDIR}/libnccl-profiler-cclscope.so when \
NCCL_PROFILER_PLUGIN names it,
and writes a trace of its collectives and point-to-point operations and
Prometheus or OpenTelemetry metrics. This package holds the plugin alone,
which links nothing but the C library: what a GPU node needs. The tools
that read the traces are in cclscope-tools.")
# libcurl is opened at run time for the OTLP push, when present.
set(CPACK_DEBIAN_${plugin_up}_PACKAGE_SUGGESTS "libcurl4, cclscope-tools")
set(CPACK_DEBIAN_${plugin_up}_PACKAGE_CONTROL_EXTRA ${deb_dir}/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

if(CCLSCOPE_BUILD_CLI OR CCLSCOPE_BUILD_EMU)
  cclscope_deb_package(${deb_tools} devel tools)
  set(CPACK_DEBIAN_${tools_up}_DESCRIPTION
      "tools for cclscope traces: check, summary, viewer, ncclemu
The cclscope command checks, merges, summarises and draws the traces that
the cclscope NCCL/RCCL profiler plugin writes, and converts them to other
formats. ncclemu is a host-only NCCL stand-in that drives a profiler
plugin through emulated jobs, to try a plugin without a GPU. With man
pages, bash completion, the Prometheus rules and the documentation.")
  # zstd and zlib are opened at run time for compressed traces; ncclemu
  # drives the plugin.
  set(CPACK_DEBIAN_${tools_up}_PACKAGE_RECOMMENDS
      "libzstd1, zlib1g, ${deb_plugin} (= ${deb_version})")
endif()

cclscope_deb_package(${deb_dev} libdevel dev)
set(CPACK_DEBIAN_${dev_up}_DESCRIPTION
    "development files for the cclscope NCCL/RCCL profiler plugin
The header of the plugin's control API (cclscope/control.h, reached with
dlopen and dlsym), a pkg-config file (its variable plugin is the plugin's
path) and a CMake package, find_package(cclscope).")
set(CPACK_DEBIAN_${dev_up}_PACKAGE_DEPENDS "${deb_plugin} (= ${deb_version})")
# Nothing in it is compiled: no shlibs to read, no debug symbols.
set(CPACK_DEBIAN_${dev_up}_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_${dev_up}_DEBUGINFO_PACKAGE OFF)

foreach(up IN ITEMS ${plugin_up} ${tools_up})
  if(CCLSCOPE_DPKG_SHLIBDEPS)
    set(CPACK_DEBIAN_${up}_PACKAGE_SHLIBDEPS ON)
  else()
    set(CPACK_DEBIAN_${up}_PACKAGE_DEPENDS "${deb_libc_depends}")
  endif()
endforeach()

include(CPack)
