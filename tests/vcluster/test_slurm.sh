#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi under a real Slurm (Debian's slurmctld/slurmd 22.05 + munge) on the
# emulated cluster: `compi vcluster up --slurm`, 2 nodes at 100 Mbit/s, then
#   - compi run -- srun --mpi=pmix  (Open MPI, PMIx)      4 ranks on 2 nodes
#   - compi run -- srun --mpi=pmi2  (MPICH, PMI-1 wire)   4 ranks on 2 nodes
#   - compi run -- sbatch job.sh, the job running srun --mpi=pmix (Open MPI)
#     and mpiexec.mpich (hydra inside the allocation, launching through srun)
#   - compi run -- salloc ... mpiexec.mpich (hydra in the root namespace)
# with COMPI_MODE=fixed COMPI_MIN_BYTES=0: every run must give the right
# results (tests/vcluster/slurm_app.c checks every element against the
# sender's formula), its ranks must be on both nodes (MPI_Get_processor_name)
# and its report must show compressed inter-node messages of the right MPI.
# Also: what --export combinations deliver to a task, the errors for a
# program whose MPI cannot be told and for sbatch --export=NONE, and that
# `down` leaves no Slurm daemon behind.  Needs root.  Last line: "N passed,
# N failed".  No check depends on timing.
#
# Own cluster name/subnet (SLT_NAME, SLT_SUBNET; default slurt / 10.213.86)
# so it never touches a cluster someone else has up on this machine.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
NAME=${SLT_NAME:-slurt}
SUBNET=${SLT_SUBNET:-10.213.86}
RUN_TIMEOUT=${SLT_TIMEOUT:-120}
export COMPI_VCLUSTER_NAME=$NAME

# binaries and reports must be visible from every node: /tmp is shared by them
vct_begin "$NAME" /tmp/compi-slt.XXXXXX
chmod 755 "$TMP"

if [[ $(id -u) -ne 0 ]]; then
    fail "must run as root (network namespaces, Slurm daemons)"
    finish
fi
for lib in "$ROOT/build/openmpi/lib/libcompi.so" "$ROOT/build/mpich/lib/libcompi.so"; do
    [[ -f $lib ]] || { fail "$lib missing (run tools/build.sh --mpi both)"; finish; }
done

# ---------------------------------------------------------------- build ----
build_ok=1
mpicc.openmpi -O2 -o "$TMP/app_openmpi" "$ROOT/tests/vcluster/slurm_app.c" || build_ok=0
mpicc.mpich -O2 -o "$TMP/app_mpich" "$ROOT/tests/vcluster/slurm_app.c" || build_ok=0
check "slurm_app.c builds with mpicc.openmpi and mpicc.mpich" test $build_ok -eq 1
printf '#!/bin/sh\nexec "$@"\n' >"$TMP/wrapper.sh"; chmod +x "$TMP/wrapper.sh"
# a caller's own preload, which logs the name of every process it is loaded into
cat >"$TMP/dummy.c" <<C
#include <stdio.h>
__attribute__((constructor)) static void slt_log(void)
{
    char comm[64] = "";
    FILE *f = fopen("/proc/self/comm", "r"), *o;
    if (f) { if (!fgets(comm, sizeof comm, f)) comm[0] = 0; fclose(f); }
    if ((o = fopen("$TMP/preloaded.txt", "a"))) { fputs(comm, o); fclose(o); }
}
C
cc -shared -fPIC -o "$TMP/dummy.so" "$TMP/dummy.c"

# mpi_of_binary against the MPI each binary was compiled with
# shellcheck source=tools/cmd/_common.sh
source "$ROOT/tools/cmd/_common.sh"
check "mpi_of_binary: openmpi / mpich / '' for the two builds and a script" \
    test "$(mpi_of_binary "$TMP/app_openmpi")/$(mpi_of_binary "$TMP/app_mpich")/$(mpi_of_binary "$TMP/wrapper.sh")" = "openmpi/mpich/"

# ------------------------------------------------------------------- up ----
etc_before=$(find /etc/slurm /etc/munge -printf '%p %s %T@\n' 2>&1 | sort || true)
t0=$SECONDS
if "$COMPI" vcluster up --name "$NAME" --subnet "$SUBNET" --nodes 2 --rate 100mbit --slots 2 --slurm >"$TMP/up.log" 2>&1; then
    pass "vcluster up --slurm ($((SECONDS - t0)) s)"
else
    fail "vcluster up --slurm"; cat "$TMP/up.log"; finish
fi
STATE=/run/compi-vcluster-$NAME
export SLURM_CONF=$STATE/slurm/slurm.conf
check "up prints the SLURM_CONF to use" grep -q "export SLURM_CONF=$SLURM_CONF" "$TMP/up.log"
check "sinfo: ${NAME}0 and ${NAME}1 idle in partition compi" \
    test "$(sinfo -h -N -p compi -t idle -o %N | sort | tr '\n' ' ')" = "${NAME}0 ${NAME}1 "
check "each slurmd runs in its node's hostname (srun -N2 hostname)" \
    test "$(timeout 60 srun -N2 -n2 hostname | sort | tr '\n' ' ')" = "${NAME}0 ${NAME}1 "
check "nothing written to /etc/slurm or /etc/munge" test "$(find /etc/slurm /etc/munge -printf '%p %s %T@\n' 2>&1 | sort || true)" = "$etc_before"

# ------------------------------------------------------------- the runs ----
# run_app LABEL MPI REPORT CMD...: runs CMD (compi run ...) and checks the
# app's output and the report.
check_app() {  # check_app LABEL LOG: results right, ranks on both nodes
    local label=$1 log=$2 hosts
    hosts=$(sed -n 's/^HOST rank=[0-9]* name=//p' "$log" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
    check "$label: correct results (RESULT ok)" grep -qx "RESULT ok" "$log"
    check "$label: 2 ranks on each node ($hosts)" test "$hosts" = "${NAME}0:2 ${NAME}1:2 "
}
check_report() {  # check_report LABEL MPI REPORT: compressed inter-node messages of that MPI
    local label=$1 mpi=$2 report=$3 summary
    if [[ ! -f $report ]]; then fail "$label: no report $report (compi was not preloaded)"; return; fi
    if summary=$(python3 - "$report" "$mpi" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
comp = sum(c["messages"] for c in t["codecs"].values())
print(f'mpi={r["mpi"]} nodes={r["nodes"]} inter={t["inter_node_messages"]} compressed={comp}')
ok = r["mpi"] == sys.argv[2] and r["nodes"] == 2 and t["inter_node_messages"] > 0 and comp > 0
sys.exit(0 if ok else 1)
PY
); then
        pass "$label: report shows compressed inter-node traffic ($summary)"
    else
        fail "$label: report ($summary)"
    fi
}

export COMPI_MODE=fixed COMPI_MIN_BYTES=0
for case in "openmpi pmix" "mpich pmi2"; do
    read -r mpi pmi <<<"$case"
    log=$TMP/srun_$mpi.log
    if COMPI_REPORT=$TMP/srun_$mpi.json timeout "$RUN_TIMEOUT" \
            "$COMPI" run -- srun --mpi="$pmi" -N2 -n4 "$TMP/app_$mpi" >"$log" 2>&1; then
        pass "compi run -- srun --mpi=$pmi -N2 -n4 ($mpi) exits 0"
    else
        fail "compi run -- srun --mpi=$pmi -N2 -n4 ($mpi) exits 0"; tail -20 "$log"
    fi
    check_app "srun $mpi" "$log"
    check_report "srun $mpi" "$mpi" "$TMP/srun_$mpi.json"
done

# the same Open MPI run without compi: right results, no report (the
# report above came from compi, not from something else in the job)
COMPI_REPORT=$TMP/plain.json timeout "$RUN_TIMEOUT" srun --mpi=pmix -N2 -n4 "$TMP/app_openmpi" >"$TMP/plain.log" 2>&1 || true
check "plain srun (no compi): correct results and no report" \
    bash -c "grep -qx 'RESULT ok' '$TMP/plain.log' && test ! -e '$TMP/plain.json'"

# ------------------------------------------------------ what tasks get ----
# --mpi forces the library for a non-MPI task (env), to see its environment
task_env() { timeout 60 "$COMPI" run --mpi openmpi -- srun -N1 -n1 "$@" 2>&1; }
lib_ompi=$(readlink -f "$ROOT/build/openmpi/lib/libcompi.so")
out=$(FOO=bar task_env /usr/bin/env)
check "srun: the task gets LD_PRELOAD=libcompi, COMPI_* and the rest of the environment" \
    bash -c "grep -q '^LD_PRELOAD=.*$lib_ompi' <<<'$out' && grep -qx 'COMPI_MODE=fixed' <<<'$out' && grep -qx 'FOO=bar' <<<'$out'"
out=$(FOO=bar task_env --export=NONE /usr/bin/env)
check "srun --export=NONE: the task still gets libcompi and COMPI_*, not FOO" \
    bash -c "grep -q '^LD_PRELOAD=.*$lib_ompi' <<<'$out' && grep -qx 'COMPI_MODE=fixed' <<<'$out' && ! grep -q '^FOO=' <<<'$out'"
out=$(SLURM_EXPORT_ENV=BAR=1 FOO=bar task_env /usr/bin/env)
check "SLURM_EXPORT_ENV=BAR=1 (as sbatch --export leaves it in a job): BAR, COMPI_* and libcompi, not FOO" \
    bash -c "grep -q '^LD_PRELOAD=.*$lib_ompi' <<<'$out' && grep -qx 'COMPI_MODE=fixed' <<<'$out' && grep -qx 'BAR=1' <<<'$out' && ! grep -q '^FOO=' <<<'$out'"
out=$(LD_PRELOAD=$TMP/dummy.so FOO=bar task_env --export=FOO /usr/bin/env || true)
check "srun --export=FOO with a caller LD_PRELOAD: FOO, COMPI_*, libcompi then the caller's preload" \
    bash -c "grep -q '^LD_PRELOAD=.*$lib_ompi:$TMP/dummy.so' <<<'$out' && grep -qx 'COMPI_MODE=fixed' <<<'$out' && grep -qx 'FOO=bar' <<<'$out'"
check "the caller's preload reached the task (env) but not srun itself ($(sort -u "$TMP/preloaded.txt" 2>/dev/null | tr '\n' ' '))" \
    bash -c "grep -qx env '$TMP/preloaded.txt' && ! grep -qx srun '$TMP/preloaded.txt'"

# ---------------------------------------------------------------- errors ----
out=$("$COMPI" run -- srun -N1 "$TMP/wrapper.sh" "$TMP/app_openmpi" 2>&1) && rc=0 || rc=$?
check "srun of a script: clear error asking for --mpi (rc=$rc)" \
    bash -c "[[ $rc -ne 0 ]] && grep -q \"can't tell which MPI '$TMP/wrapper.sh'\" <<<\"\$1\" && grep -q -- '--mpi' <<<\"\$1\"" _ "$out"
out=$("$COMPI" run -- sbatch --export=NONE "$TMP/wrapper.sh" 2>&1) && rc=0 || rc=$?
check "sbatch --export=NONE: clear error naming the option (rc=$rc)" \
    bash -c "[[ $rc -ne 0 ]] && grep -q 'sbatch --export=NONE' <<<\"\$1\"" _ "$out"

printf '#!/bin/bash\n#SBATCH -N2\nsrun --mpi=pmix -n 4 %s %s\n' "$TMP/wrapper.sh" "$TMP/app_openmpi" >"$TMP/badjob.sh"
out=$("$COMPI" run -- sbatch "$TMP/badjob.sh" 2>&1) && rc=0 || rc=$?
check "sbatch of a job whose srun runs a script: refused at submission, naming line 3 (rc=$rc)" \
    bash -c "[[ $rc -ne 0 ]] && grep -q \"badjob.sh line 3: can't tell which MPI '$TMP/wrapper.sh'\" <<<\"\$1\"" _ "$out"

# ---------------------------------------------------------------- sbatch ----
cat >"$TMP/job.sh" <<JOB
#!/bin/bash
#SBATCH -N2 -n4
#SBATCH -o $TMP/job.out
echo "BATCH host=\$(hostname) LD_PRELOAD=\${LD_PRELOAD:-}"
COMPI_REPORT=$TMP/job_openmpi.json srun --mpi=pmix $TMP/app_openmpi > $TMP/job_openmpi.log 2>&1
echo "RC openmpi=\$?"
COMPI_REPORT=$TMP/job_mpich.json mpiexec.mpich -n 4 $TMP/app_mpich > $TMP/job_mpich.log 2>&1
echo "RC mpich=\$?"
W=$TMP/wrapper.sh
srun -n 1 \$W /bin/true 2>&1
echo "RC script=\$?"
JOB
if jobid=$("$COMPI" run -- sbatch --parsable "$TMP/job.sh" 2>"$TMP/sbatch.err"); then
    pass "compi run -- sbatch submits (job $jobid)"
else
    fail "compi run -- sbatch submits"; cat "$TMP/sbatch.err"; finish
fi
state=""
for ((i = 0; i < RUN_TIMEOUT; i++)); do
    state=$(scontrol show job "$jobid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    [[ $state == PENDING || $state == RUNNING || $state == CONFIGURING || $state == COMPLETING ]] || break
    sleep 1
done
check "sbatch job $jobid completed (state $state)" test "$state" = COMPLETED
check "the batch shell ran on ${NAME}0 without libcompi preloaded" \
    bash -c "grep -q '^BATCH host=${NAME}0 ' '$TMP/job.out' && ! grep '^BATCH' '$TMP/job.out' | grep -q libcompi"
check "in the job: srun (Open MPI) and mpiexec.mpich exit 0" \
    bash -c "grep -qx 'RC openmpi=0' '$TMP/job.out' && grep -qx 'RC mpich=0' '$TMP/job.out'"
check "in the job: srun of a script fails with the error asking for --mpi" \
    bash -c "grep -q \"can't tell which MPI '$TMP/wrapper.sh'\" '$TMP/job.out' && grep -qx 'RC script=1' '$TMP/job.out'"
for mpi in openmpi mpich; do
    check_app "sbatch job, $mpi" "$TMP/job_$mpi.log"
    check_report "sbatch job, $mpi" "$mpi" "$TMP/job_$mpi.json"
done

# ---------------------------------------------------------------- salloc ----
# MPICH inside an allocation from the root namespace: mpiexec.mpich launches
# its proxies through srun (vcluster usage: -iface and the finalize fix)
log=$TMP/salloc_mpich.log
if COMPI_REPORT=$TMP/salloc_mpich.json LD_PRELOAD=$STATE/ucx-force-close.so timeout "$RUN_TIMEOUT" \
        "$COMPI" run -- salloc -N2 -n4 mpiexec.mpich -iface "${NAME}br0" "$TMP/app_mpich" >"$log" 2>&1; then
    pass "compi run -- salloc -N2 -n4 mpiexec.mpich exits 0"
else
    fail "compi run -- salloc -N2 -n4 mpiexec.mpich exits 0"; tail -20 "$log"
fi
check_app "salloc mpich" "$log"
check_report "salloc mpich" mpich "$TMP/salloc_mpich.json"

# ------------------------------------------------------------------ down ----
pids=$(cat "$STATE"/slurm/slurmctld.pid "$STATE"/slurm/munge-run/munged.pid "$STATE"/slurm/spool/slurmd-*.pid 2>/dev/null | tr '\n' ' ')
"$COMPI" vcluster down --name "$NAME" >/dev/null 2>&1 || true
left=""
for p in $pids; do kill -0 "$p" 2>/dev/null && left+="$p "; done
check "down stops slurmctld, munged and both slurmd (pids $pids) and removes $STATE" \
    bash -c "[[ -z '$left' && ! -e '$STATE' ]]"
finish
