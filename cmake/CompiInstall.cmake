# SPDX-License-Identifier: BSD-3-Clause
# Install rules (included at the end of CMakeLists.txt).  Both MPIs' builds
# install side by side into one prefix P:
#   P/bin/compi                        the command (finds everything relative to itself)
#   P/lib/libcompi-<mpi>.so*           the PMPI library, named after its MPI
#   P/lib/pkgconfig/compi-<mpi>.pc     link line for building compi into an application
#   P/libexec/compi/                   subcommand scripts + MPI-free tools (identical from both builds);
#                                      the development commands (dev/: bench, vcluster) are not installed
#   P/libexec/compi/<mpi>/             MPI programs: benchmarks, calibrate network, mini-apps
#   P/share/compi/                     documentation (README, docs/, LICENSE, THIRD-PARTY, CHANGELOG)
#   P/share/man/man1, man5             manual pages: compi(1), compi-<sub>(1), compi.conf(5)
#   P/share/modulefiles/compi/<ver>    environment-modules / Lmod modulefile
# In the build tree the library stays reachable as build/<mpi>/lib/libcompi.so.
include(GNUInstallDirs)

set(COMPI_LIBEXEC_DIR ${CMAKE_INSTALL_LIBEXECDIR}/compi)

# The library's file name and soname say which MPI it is for, so an
# application linked with -lcompi-openmpi can never pick up the MPICH one.
set_target_properties(compi PROPERTIES OUTPUT_NAME compi-${COMPI_MPI})
add_custom_command(TARGET compi POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE_NAME:compi> ${CMAKE_BINARY_DIR}/lib/libcompi.so
  VERBATIM)

# Installed paths relative to the libexec directory (for RPATH and the
# scripts' _layout.sh).  A relative GNUInstallDirs value stays relative, so
# `cmake --install --prefix Q` may pick another prefix than the configured one.
function(compi_rel_dir out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    file(RELATIVE_PATH rel "/P/${COMPI_LIBEXEC_DIR}" "/P/${dir}")
    set(${out} "${rel}" PARENT_SCOPE)
  endif()
endfunction()
compi_rel_dir(COMPI_REL_BINDIR ${CMAKE_INSTALL_BINDIR})
compi_rel_dir(COMPI_REL_LIBDIR ${CMAKE_INSTALL_LIBDIR})
compi_rel_dir(COMPI_REL_DATADIR ${CMAKE_INSTALL_DATADIR}/compi)
compi_rel_dir(COMPI_REL_SYSCONFDIR ${CMAKE_INSTALL_SYSCONFDIR}/compi)
compi_rel_dir(COMPI_REL_MANDIR ${CMAKE_INSTALL_MANDIR})
compi_rel_dir(COMPI_REL_PREFIX .)
if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
  message(FATAL_ERROR "CMAKE_INSTALL_BINDIR must be relative to the prefix (got ${CMAKE_INSTALL_BINDIR})")
endif()
file(RELATIVE_PATH COMPI_BIN_TO_LIBEXEC "/P/${CMAKE_INSTALL_BINDIR}" "/P/${COMPI_LIBEXEC_DIR}")

# Writes a generated file only when its content changes (no needless reinstalls).
function(compi_write_if_changed path content)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${path}" "${content}")
  endif()
endfunction()

# --- the library ------------------------------------------------------------
# RUNPATH: its own directory plus any non-system directory it was linked
# against (a codec library or MPI outside the loader's default paths).
set_target_properties(compi PROPERTIES INSTALL_RPATH "$ORIGIN" INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS compi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# --- programs -----------------------------------------------------------------
# MPI-free tools: the same sources and flags in both builds, so either
# build's copy serves (the second install overwrites the first with its twin).
# MPI programs: one directory per MPI.  Names not (yet) defined in this tree
# are skipped, so a tool added later only needs its name here.
set(COMPI_MPI_FREE_TOOLS compi_guide compi_maptool compi_calibrate_codecs compi_config)
set(COMPI_MPI_PROGRAMS compi_pingpong compi_collbench compi_calibrate_network
    compi_stencil3d compi_bips3d compi_stem compi_psrg compi_nas_is compi_transpose)
foreach(t ${COMPI_MPI_FREE_TOOLS})
  if(TARGET ${t})
    set_target_properties(${t} PROPERTIES INSTALL_RPATH "$ORIGIN/${COMPI_REL_LIBDIR}" INSTALL_RPATH_USE_LINK_PATH TRUE)
    install(TARGETS ${t} RUNTIME DESTINATION ${COMPI_LIBEXEC_DIR})
  endif()
endforeach()
foreach(t ${COMPI_MPI_PROGRAMS})
  if(TARGET ${t})
    set_target_properties(${t} PROPERTIES INSTALL_RPATH "$ORIGIN/../${COMPI_REL_LIBDIR}" INSTALL_RPATH_USE_LINK_PATH TRUE)
    install(TARGETS ${t} RUNTIME DESTINATION ${COMPI_LIBEXEC_DIR}/${COMPI_MPI})
  endif()
endforeach()

# --- the command and its scripts ------------------------------------------------
# bin/compi is tools/compi with COMPI_LIBEXEC_REL set: that is how it knows
# it is installed and where its subcommands are.
file(READ ${CMAKE_SOURCE_DIR}/tools/compi compi_dispatcher)
string(REGEX REPLACE "\nCOMPI_LIBEXEC_REL=\n" "\nCOMPI_LIBEXEC_REL=${COMPI_BIN_TO_LIBEXEC}\n"
       compi_dispatcher_inst "${compi_dispatcher}")
if(compi_dispatcher_inst STREQUAL compi_dispatcher)
  message(FATAL_ERROR "tools/compi has no line 'COMPI_LIBEXEC_REL=' for the install rules to fill in")
endif()
compi_write_if_changed(${CMAKE_BINARY_DIR}/install/compi "${compi_dispatcher_inst}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/compi)
install(PROGRAMS ${CMAKE_BINARY_DIR}/install/compi DESTINATION ${CMAKE_INSTALL_BINDIR})

# Where the rest of the installation is, seen from P/libexec/compi (sourced by _common.sh).
compi_write_if_changed(${CMAKE_BINARY_DIR}/install/_layout.sh
"# shellcheck shell=bash
# Generated by cmake/CompiInstall.cmake: this installation's directories,
# relative to this file's directory (P/libexec/compi) unless absolute.
COMPI_LAYOUT_PREFIX=${COMPI_REL_PREFIX}
COMPI_LAYOUT_BINDIR=${COMPI_REL_BINDIR}
COMPI_LAYOUT_LIBDIR=${COMPI_REL_LIBDIR}
COMPI_LAYOUT_DATADIR=${COMPI_REL_DATADIR}
COMPI_LAYOUT_SYSCONFDIR=${COMPI_REL_SYSCONFDIR}
COMPI_LAYOUT_MANDIR=${COMPI_REL_MANDIR}
COMPI_LAYOUT_VERSION=${PROJECT_VERSION}
")
install(FILES ${CMAKE_BINARY_DIR}/install/_layout.sh DESTINATION ${COMPI_LIBEXEC_DIR})
# `compi --version` of an installation: the version and git describe of the
# build (generated/version.txt, cmake/CompiVersion.cmake)
install(FILES ${COMPI_GEN}/version.txt DESTINATION ${COMPI_LIBEXEC_DIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/tools/cmd/ DESTINATION ${COMPI_LIBEXEC_DIR}
        USE_SOURCE_PERMISSIONS PATTERN "__pycache__" EXCLUDE)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/tools/report/compi_report.py DESTINATION ${COMPI_LIBEXEC_DIR})

# --- documentation --------------------------------------------------------------
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/LICENSE ${CMAKE_SOURCE_DIR}/THIRD-PARTY.md
              ${CMAKE_SOURCE_DIR}/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DATADIR}/compi)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/compi/docs
        PATTERN "man" EXCLUDE)
# manual pages: hand-written roff in docs/man (man -l docs/man/man1/compi.1
# reads one in the source tree); `compi help SUB` shows them
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/man/man1 ${CMAKE_SOURCE_DIR}/docs/man/man5
        DESTINATION ${CMAKE_INSTALL_MANDIR})

# --- pkg-config file and modulefile -----------------------------------------------
# Both name the prefix, which is known only at install time
# (cmake --install --prefix), so they are written then.
configure_file(${CMAKE_SOURCE_DIR}/cmake/compi_install_files.cmake.in
               ${CMAKE_BINARY_DIR}/install/compi_install_files.cmake @ONLY)
install(SCRIPT ${CMAKE_BINARY_DIR}/install/compi_install_files.cmake)
