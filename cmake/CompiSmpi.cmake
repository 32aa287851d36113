# SPDX-License-Identifier: BSD-3-Clause
# The smpi build flavour (COMPI_MPI=smpi): libcompi, the mini-apps and the
# benchmarks built with SimGrid's smpicc for simulated runs (docs/simulate.md).
# Included by the top CMakeLists.txt before project(): it picks the compilers
# and says what the flavour adds; nothing here touches the other flavours.
#  - every libcompi source gets lib/compat/smpi_compat.h force-included: the
#    calls SMPI 3.32 declares without implementing, served by lib/compat;
#  - the codec table is lib/compat/smpi_codecs.c (codec_table.c over codecs
#    whose time is charged to the simulated clock by a model);
#  - the MPI-free tools (compi guide, map, config, calibrate) and the ctest
#    suites of tests/ are the host builds' (smpicc makes every program a
#    shared object for smpirun, no tool could run from it): this flavour
#    builds libcompi, apps/, bench/ and tests/smpi.
find_program(COMPI_SMPICC smpicc)
find_program(COMPI_SMPIF90 smpif90)
if(NOT COMPI_SMPICC OR NOT COMPI_SMPIF90)
  message(FATAL_ERROR "COMPI_MPI=smpi needs SimGrid's smpicc and smpif90 (Debian: apt-get install libsimgrid-dev simgrid)")
endif()
set(CMAKE_C_COMPILER ${COMPI_SMPICC})
set(CMAKE_Fortran_COMPILER ${COMPI_SMPIF90})
set(COMPI_BUILD_TOOLS OFF CACHE BOOL "MPI-free tools: the host builds' under smpi" FORCE)
set(COMPI_BUILD_TESTS OFF CACHE BOOL "ctest suites of tests/: the host builds'; smpi has tests/smpi" FORCE)
set(COMPI_SMPI_DIR ${CMAKE_CURRENT_LIST_DIR}/../lib/compat)
set(COMPI_SMPI_CODEC_SOURCES ${COMPI_SMPI_DIR}/smpi_codecs.c ${COMPI_SMPI_DIR}/smpi_codec_speeds.c)
set(COMPI_SMPI_CORE_SOURCES ${COMPI_SMPI_DIR}/smpi_compat.c)
set(COMPI_SMPI_CORE_OPTIONS -include ${COMPI_SMPI_DIR}/smpi_compat.h)
# smpirun copies libcompi once per simulated rank (smpi/privatize-libs): its
# debug sections, three quarters of the file, would be copied a thousand
# times at a thousand ranks and never read
set(COMPI_SMPI_LIB_LINK_OPTIONS -Wl,--strip-debug)

