# SPDX-License-Identifier: Apache-2.0
# packaging/debian_repack.cmake — run by cpack once it has written the
# Debian packages (CPACK_POST_BUILD_SCRIPTS, set in debian.cmake). It
# corrects, with dpkg-deb (unpack, change, pack again), what CMake 3.25's
# DEB generator writes that Debian's rules (lintian) refuse:
#   - a -dbgsym .ddeb names its debug file in DEBIAN/md5sums by the build
#     machine's absolute path, so md5sums lists a file the package lacks
#     and misses the one it has: md5sums is written again from the files;
#   - a -dbgsym .ddeb has no copyright and no changelog: as Debian's own
#     debug packages, it gets usr/share/doc/<its name> as a link to the
#     doc folder of the package it depends on (same version), whose
#     copyright and changelog.Debian.gz are then its own (a debug package
#     may hold no other regular file than .debug ones);
#   - a package with a shared object in /usr/lib gets postinst and postrm
#     scripts that run ldconfig: the plugin's package activates dpkg's
#     ldconfig trigger instead (debian.cmake), so they are removed, when
#     they do nothing else.
# Inputs (CPackConfig.cmake): CPACK_PACKAGE_FILES (what cpack wrote),
# CPACK_CCLSCOPE_DPKG_DEB.

function(cclscope_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "debian_repack: '${ARGN}' failed (${rc}): ${out}")
  endif()
endfunction()

# DEBIAN/md5sums of the unpacked package in dir: every regular file
# outside DEBIAN/, sorted, as dpkg writes it.
function(cclscope_write_md5sums dir)
  file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE ${dir} ${dir}/*)
  list(SORT files)
  set(sums "")
  foreach(f IN LISTS files)
    if(f MATCHES "^DEBIAN/" OR IS_SYMLINK ${dir}/${f})
      continue()
    endif()
    file(MD5 ${dir}/${f} sum)
    string(APPEND sums "${sum}  ${f}\n")
  endforeach()
  file(WRITE ${dir}/DEBIAN/md5sums "${sums}")
endfunction()

# Whether the maintainer script holds only CPack's ldconfig call: the
# shell line, set -e, the if on configure or remove, ldconfig and fi.
function(cclscope_is_ldconfig_only script result)
  file(STRINGS ${script} lines)
  set(only TRUE)
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    if(NOT line MATCHES "^(|#!/bin/sh|set -e|ldconfig|fi|if \\[ \"\\$1\" = \"(configure|remove)\" \\]; then)$")
      set(only FALSE)
    endif()
  endforeach()
  set(${result} ${only} PARENT_SCOPE)
endfunction()

foreach(package IN LISTS CPACK_PACKAGE_FILES)
  set(dir ${package}.repack)
  file(REMOVE_RECURSE ${dir})
  cclscope_run(${CPACK_CCLSCOPE_DPKG_DEB} --raw-extract ${package} ${dir})
  set(changed FALSE)
  if(package MATCHES "[.]ddeb$")
    file(STRINGS ${dir}/DEBIAN/control name REGEX "^Package: ")
    string(REGEX REPLACE "^Package: " "" name "${name}")
    string(REGEX REPLACE "-dbgsym$" "" parent "${name}")
    file(MAKE_DIRECTORY ${dir}/usr/share/doc)
    file(CREATE_LINK ${parent} ${dir}/usr/share/doc/${name} SYMBOLIC)
    cclscope_write_md5sums(${dir})
    set(changed TRUE)
  endif()
  foreach(script IN ITEMS postinst postrm)
    if(EXISTS ${dir}/DEBIAN/${script})
      cclscope_is_ldconfig_only(${dir}/DEBIAN/${script} only)
      if(NOT only)
        message(FATAL_ERROR "debian_repack: ${package}: DEBIAN/${script} "
                            "does more than CPack's ldconfig call")
      endif()
      file(REMOVE ${dir}/DEBIAN/${script})
      set(changed TRUE)
    endif()
  endforeach()
  if(changed)
    cclscope_run(${CPACK_CCLSCOPE_DPKG_DEB} --root-owner-group -Zxz --build
                 ${dir} ${package})
  endif()
  file(REMOVE_RECURSE ${dir})
endforeach()
