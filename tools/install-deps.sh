#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what compi needs on Debian 12 (root): both MPIs, compilers, the
# codec libraries, clang for the fuzzers, iproute2 for the emulated cluster,
# METIS and Scotch for the bips3d mini-application's mesh partitioning,
# Slurm + munge for the emulated cluster's Slurm (vcluster up --slurm; 6
# packages, 3.3 MB download, 13 MB installed; their services stay off until
# an /etc/slurm/slurm.conf exists, which compi never writes), parallel HDF5
# for both MPIs (the collective I/O check that an HDF5 file written through
# compi is the file written without it: tests/hdf5), SimGrid (SMPI, the
# simulated runs of tools/build.sh --mpi smpi and compi simulate; ~55 MB).
# Skips apt entirely when everything is already there.
set -euo pipefail
pkgs=(build-essential cmake pkg-config python3 gfortran
      openmpi-bin libopenmpi-dev mpich libmpich-dev
      liblz4-dev libzstd-dev zlib1g-dev libsnappy-dev liblzo2-dev libblosc-dev libaec-dev
      clang libclang-rt-14-dev iproute2 util-linux procps python3-venv python3-dev python3-numpy
      python3-matplotlib python3-scipy libmetis-dev libscotch-dev libhwloc-dev
      slurmctld slurmd slurm-client munge
      libhdf5-openmpi-dev libhdf5-mpich-dev
      shellcheck pyflakes3 mkdocs clang-format man-db   # the lint stage; man: compi help SUBCOMMAND
      libsimgrid-dev simgrid               # SimGrid SMPI: the smpi build, compi simulate
      scalapack-mpi-test hpcc lammps       # the foreign stage's real applications (tests/foreign/apps.sh):
      mumps-test python3-petsc4py python-petsc4py-doc)   # + MUMPS, petsc4py, its demos (40 packages with PETSc)
# a `module` command for the modulefile test (tests/install): environment-modules,
# unless Lmod is there (the two packages conflict: installing one removes the other)
dpkg-query -W -f='${Status}' lmod 2>/dev/null | grep -q "install ok installed" || pkgs+=(environment-modules)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: need root to install: ${missing[*]}" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
