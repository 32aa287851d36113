#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: emulated multi-node cluster on this machine (up|down|status|run)
#
# How the emulation works (and why):
#   * One network namespace per node (cnode0..cnodeN-1), each with a veth
#     whose other end sits on a Linux bridge in the root namespace.  The
#     root namespace has an address on the bridge (.1) so mpirun/mpiexec run
#     there, unchanged, and the daemons they start on the nodes (Open MPI's
#     orted, hydra's proxies) can connect back to them over the bridge.
#   * Link speed: a tbf qdisc on BOTH ends of every veth (the node-side end
#     shapes what the node sends, the bridge-side end what it receives), so
#     each node's link is limited in both directions.  netem is not in this
#     kernel, so there is rate but no added latency.
#   * Hostname: a persistent UTS namespace per node, kept alive by a bind
#     mount of its nsfs file in the state dir (unshare --uts=FILE) instead of
#     a holder process, so nothing has to keep running and `down` only has to
#     unmount.  Everything on a node is started with
#     `nsenter --net=/run/netns/<node> --uts=<state>/uts/<node>`, so
#     gethostname() says cnodeK, which is what both MPIs' node detection
#     (MPI_Comm_split_type SHARED, Open MPI session dirs) and
#     MPI_Get_processor_name see.
#   * Name resolution: hostfiles list node NAMES; neither launcher resolves
#     them (they only hand them to the launch agent, which maps name -> netns
#     via <state>/nodes), and the daemons connect back by IP.  /etc/hosts is
#     shared with the other engineers on this machine, so we never edit it.
#     Inside the nodes names do resolve: `ip netns exec <node>` (which the
#     agent uses) bind-mounts /etc/netns/<node>/hosts over /etc/hosts, and
#     `up` writes that file (all nodes + <name>-head = the root namespace).
#   * Launch agent (<state>/agent): stands in for ssh for both MPIs
#     (Open MPI --mca plm_rsh_agent, hydra -launcher ssh -launcher-exec).  It
#     skips ssh options (hydra passes -x), and runs the command with a CLEAN
#     environment (env -i, like a fresh ssh login), so only what the MPI
#     explicitly forwards (-x / -genv) reaches the ranks, as on a real cluster.
#   * IPC: each node also has its own persistent IPC namespace.  UCX (used
#     by Debian's MPICH, ch4:ucx) decides that two processes can use shared
#     memory (posix/sysv/cma) when they have the same boot id and IPC
#     namespace; with one IPC namespace per node, UCX uses shared memory
#     inside a node and tcp (over the shaped link) between nodes, as on a real
#     cluster.  Without it, UCX shared memory crosses "nodes" and bypasses the
#     link; the alternative UCX_TLS=tcp,self would push intra-node traffic
#     through tcp too.  MPICH ranks get UCX_TLS=sm,self,tcp and
#     UCX_NET_DEVICES=<node veth>, plus a preloaded fix for a finalize hang
#     (dev/cmd/vcluster_ucx_close.c), which with VCLUSTER_MPICH_YIELD=1 in
#     the ranks' environment also yields the core after an empty UCX poll
#     (MPICH never yields on Linux; the emulated nodes share the cores).
#     Open MPI: pml ob1 with btl tcp,self,vader (pml ucx would bring UCX in),
#     btl and oob restricted to the bridge subnet.
#
# State dir: $COMPI_VCLUSTER_DIR, default /run/compi-vcluster (or
# /run/compi-vcluster-<name> for a cluster with a non-default --name, so a
# test can run its own cluster next to someone else's).
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/cmd/_common.sh"
COMPI_DEV_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

LOCK_FILE=/run/compi-vcluster.lock
NS_DEV=ceth0   # node-side interface name, identical on every node (UCX_NET_DEVICES)
HOSTS_MARKER="# written by compi vcluster"

usage() {
    cat <<'USAGE'
usage: compi vcluster up     --nodes N --rate RATE [--slots S] [--name P] [--subnet A.B.C] [--slurm]
                             [--links A-B:RATE,...] [--racks K --cross-rate RATE]
       compi vcluster down   [--name P]
       compi vcluster status [--name P]
       compi vcluster run    [--mpi openmpi|mpich] [--preload LIB] [--compi]
                             [--build-dir DIR] [--map block|rr] [--placement D] [--name P]
                             -- [mpirun|mpiexec] <launcher args...>
       compi vcluster exec   NODE -- <command...>   (a shell command on a node)

  up      creates nodes P0..P(N-1) (default P=cnode) on bridge Pbr0, subnet
          A.B.C.0/24 (default 10.213.0; node K is A.B.C.(10+K), the root
          namespace is A.B.C.1), each link shaped to RATE in both directions
          (any tc rate: 100mbit, 1gbit, 500mbit, 20mbps...).  S = slots per
          node (default: number of cores).  Running it again re-creates the
          cluster.
          --links A-B:RATE,...  pairs of nodes (indices 0..N-1 or names)
                     whose link differs from RATE, e.g. 0-1:1gbit,2-3:20mbit
          --racks K --cross-rate RATE2  K racks of consecutive nodes: RATE
                     inside a rack, RATE2 between racks (--links still wins)
          With either, what a node sends goes at the pair's rate (htb class
          per destination, u32 filter on its address) and what it receives
          at its fastest link's rate; <state>/links lists every pair's rate.
          Rates only: this kernel has no netem, so no added latency.
          --slurm also starts a Slurm cluster on it (see "Slurm" below).
  down    removes namespaces, bridge, veths, UTS mounts, processes left on the
          nodes, and the state dir; fine to call when nothing is up.
  status  nodes, hostnames, addresses, rate.
  run     runs an MPI job across the nodes with the launcher flags that MPI
          needs.  Ranks fill nodes by slot (ranks 0..S-1 on node 0, ...);
          --map rr places them round-robin (Open MPI --map-by node, MPICH a
          hostfile with one slot per line, which hydra cycles through).
          Variables for ranks: Open MPI  -x NAME[=VALUE];  MPICH  -genv NAME
          VALUE (hydra also forwards mpiexec's whole environment by default).
          --preload LIB  sets LD_PRELOAD=LIB for the ranks only (not mpirun).
          --placement D  ranks where `compi map -o D` put them (Open MPI: the
                         seq mapper over D/machinefile, no binding; MPICH:
                         -f D/machinefile), with D/env's variables; its
                         hosts must be this cluster's nodes.
          --compi        preload <build-dir>/<mpi>/lib/libcompi.so (built by
                         tools/build.sh; installed: P/lib/libcompi-<mpi>.so)
                         and pass COMPI_* variables through.
          The MPI is taken from --mpi, else from a launcher named after --,
          else from what plain `mpirun` is on this machine.

Slurm (--slurm; packages slurmctld slurmd slurm-client munge, installed by
tools/install-deps.sh): a munged (own key and socket) and slurmctld in the
root namespace, one slurmd per node inside the node's namespaces (its own
hostname and address), partition "compi" with all nodes; everything (config,
state, logs, spool) under <state>/slurm, nothing in /etc/slurm.  Use it with
    export SLURM_CONF=<state>/slurm/slurm.conf    (printed by up and status)
    srun --mpi=pmix -N2 -n4 ./app_openmpi ; srun --mpi=pmi2 -N2 -n4 ./app_mpich
    compi run -- srun ... ; compi run -- sbatch job.sh
Its TaskProlog gives every task what the emulated links need: MPICH/UCX
UCX_TLS=sm,self,tcp, UCX_NET_DEVICES=ceth0 and the finalize-hang fix
preloaded (as `vcluster run` does), and Open MPI's btl/oob limited to the
node's subnet.  The ranks of an mpiexec.mpich run from this namespace (under
salloc) get mpiexec's environment instead: give it -iface <bridge> and
LD_PRELOAD=<state>/ucx-force-close.so (else it may hang in MPI_Finalize).
USAGE
}

# ---------------------------------------------------------------- config ----

# Sets NAME, SUBNET, STATE_DIR, BRIDGE from flags/env (before `up`) or from
# the saved state (after `up`).
load_names() {
    NAME=${OPT_NAME:-${COMPI_VCLUSTER_NAME:-cnode}}
    [[ $NAME =~ ^[a-z][a-z0-9]{0,9}$ ]] || die "--name must be 1-10 lowercase letters/digits starting with a letter (it prefixes interface names, max 15 chars)"
    if [[ -n ${COMPI_VCLUSTER_DIR:-} ]]; then
        STATE_DIR=$COMPI_VCLUSTER_DIR
    elif [[ $NAME == cnode ]]; then
        STATE_DIR=/run/compi-vcluster
    else
        STATE_DIR=/run/compi-vcluster-$NAME
    fi
    BRIDGE=${NAME}br0
    SUBNET=${OPT_SUBNET:-${COMPI_VCLUSTER_SUBNET:-10.213.0}}
    [[ $SUBNET =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--subnet takes the first three octets, e.g. 10.213.0"
}

load_state() {
    load_names
    [[ -f $STATE_DIR/config ]] || die "no emulated cluster '$NAME' is up (no $STATE_DIR/config); run: compi vcluster up --nodes N --rate RATE"
    # shellcheck disable=SC1091
    source "$STATE_DIR/config"
}

require_root() {
    [[ $(id -u) -eq 0 ]] || die "vcluster needs root (network namespaces, tc)"
    require_cmds ip tc unshare nsenter flock mount umount
}

# up/down of any cluster are serialized: they share the ip/tc namespace of
# the machine, and two engineers' scripts may run them at the same time.
take_lock() {
    exec 9>"$LOCK_FILE"
    if ! flock -n 9; then
        note "waiting for another vcluster up/down to finish ($LOCK_FILE)"
        flock -w 300 9 || die "timed out waiting for $LOCK_FILE"
    fi
}

# tc rate string -> bits per second (for the tbf burst size).
rate_to_bps() {
    local r=${1,,} num unit
    [[ $r =~ ^([0-9]+(\.[0-9]+)?)([a-z]*)$ ]] || return 1
    num=${BASH_REMATCH[1]}; unit=${BASH_REMATCH[3]}
    local mult
    case "$unit" in
        ""|bit) mult=1 ;;
        kbit) mult=1000 ;;   mbit) mult=1000000 ;;
        gbit) mult=1000000000 ;; tbit) mult=1000000000000 ;;
        kibit) mult=1024 ;;  mibit) mult=1048576 ;; gibit) mult=1073741824 ;;
        bps) mult=8 ;;       kbps) mult=8000 ;;
        mbps) mult=8000000 ;; gbps) mult=8000000000 ;;
        *) return 1 ;;
    esac
    awk -v n="$num" -v m="$mult" 'BEGIN { printf "%.0f\n", n * m }'
}

# Shape egress of one interface like a real link: a message of any size
# leaves at the rate. The token bucket is 125 us worth of data but at least
# 16 KiB, and GSO super-packets are capped at 9000 B so that bucket can pass
# them whole. (A 2 ms / 64 KiB bucket, needed with 64 KiB GSO packets, let
# every isolated message under ~250 KB through at memory speed at 1 Gbit/s:
# measured ping-pong time per byte 0.2-1.3 ns at 8-32 KiB instead of the
# link's 8 ns, which made the calibrated network model wrong for all
# mid-size messages.) If the kernel refuses the GSO cap, the old bucket.
shape_dev() {
    local netns=$1 dev=$2 rate=$3 burst
    local -a in_ns=()
    [[ -n $netns ]] && in_ns=(ip netns exec "$netns")
    burst=$(shape_burst "$netns" "$dev" "$rate")
    "${in_ns[@]}" tc qdisc replace dev "$dev" root tbf rate "$rate" burst "$burst" latency 100ms
}

# The token bucket for RATE on a device (caps its GSO packets first, see above).
shape_burst() {  # NETNS DEV RATE
    local netns=$1 dev=$2 bps burst
    local -a in_ns=()
    [[ -n $netns ]] && in_ns=(ip netns exec "$netns")
    bps=$(rate_to_bps "$3")
    if "${in_ns[@]}" ip link set dev "$dev" gso_max_size 9000 2>/dev/null; then
        burst=$(( bps / 8 / 8000 ))
        (( burst < 16384 )) && burst=16384
    else
        burst=$(( bps / 8 / 500 ))
        (( burst < 65536 )) && burst=65536
    fi
    echo "$burst"
}

# Links that differ per node pair (--links/--racks): what a node SENDS is
# shaped per destination, an htb on the node-side veth with one class per
# destination node whose pair rate is not the default (u32 filter on the
# destination address, a tbf leaf with the same small bucket as shape_dev),
# everything else (other nodes, the head) in the default class at the
# default rate. What a node RECEIVES is shaped, as before, by a tbf on the
# bridge-side veth, at the node's fastest link (its NIC): so a pair's
# traffic goes at the pair's rate, and several senders into one node share
# its NIC. (netem and flower are not in this kernel: rates differ, latency
# does not.)
shape_node_links() {  # NODE_INDEX NODE HOST_DEV
    local i=$1 node=$2 host_dev=$3 j rate burst nic=$RATE_DEFAULT cls
    burst=$(shape_burst "$node" "$NS_DEV" "$RATE_DEFAULT")
    ip netns exec "$node" tc qdisc replace dev "$NS_DEV" root handle 1: htb default 1
    ip netns exec "$node" tc class add dev "$NS_DEV" parent 1: classid 1:1 htb rate "$RATE_DEFAULT" \
        ceil "$RATE_DEFAULT" burst "$burst" cburst "$burst" quantum 9000
    ip netns exec "$node" tc qdisc add dev "$NS_DEV" parent 1:1 handle 2: tbf rate "$RATE_DEFAULT" burst "$burst" latency 100ms
    for ((j = 0; j < NODES_N; j++)); do
        (( j == i )) && continue
        rate=${LINK_RATE_OF[$i,$j]:-}
        [[ -n $rate ]] || continue
        (( $(rate_to_bps "$rate") > $(rate_to_bps "$nic") )) && nic=$rate
        cls=$((100 + j))
        burst=$(shape_burst "$node" "$NS_DEV" "$rate")
        ip netns exec "$node" tc class add dev "$NS_DEV" parent 1: classid "1:$cls" htb rate "$rate" \
            ceil "$rate" burst "$burst" cburst "$burst" quantum 9000
        ip netns exec "$node" tc qdisc add dev "$NS_DEV" parent "1:$cls" handle "$cls:" tbf rate "$rate" \
            burst "$burst" latency 100ms
        ip netns exec "$node" tc filter add dev "$NS_DEV" parent 1: protocol ip prio 1 u32 \
            match ip dst "$SUBNET.$((10 + j))/32" flowid "1:$cls"
    done
    shape_dev "" "$host_dev" "$nic"
}

# --links "A-B:RATE,..." (A, B node indices or names) and --racks K
# --cross-rate RATE (K racks of consecutive nodes; pairs in different racks
# at RATE; --links wins) -> LINK_RATE_OF[i,j] for both orders, and the
# lines of <state>/links ("node node rate", every pair, default included).
parse_links() {  # NODES LINKS RACKS CROSS_RATE
    local n=$1 spec=$2 racks=$3 cross=$4 item a b r i j
    declare -gA LINK_RATE_OF=()
    if [[ -n $racks ]]; then
        [[ $racks =~ ^[1-9][0-9]*$ ]] && (( racks <= n )) || die "vcluster up: --racks takes 1..$n (the number of nodes)"
        [[ -n $cross ]] || die "vcluster up: --racks needs --cross-rate RATE (the rate between racks)"
        rate_to_bps "$cross" >/dev/null || die "vcluster up: can't parse --cross-rate '$cross'"
        for ((i = 0; i < n; i++)); do
            for ((j = 0; j < n; j++)); do
                (( i != j && i * racks / n != j * racks / n )) && LINK_RATE_OF[$i,$j]=$cross
            done
        done
    elif [[ -n $cross ]]; then
        die "vcluster up: --cross-rate needs --racks K"
    fi
    [[ -n $spec ]] || return 0
    local -a items
    IFS=, read -r -a items <<<"$spec"
    for item in "${items[@]}"; do
        [[ $item =~ ^([a-z0-9]+)-([a-z0-9]+):([0-9.]+[a-z]*)$ ]] ||
            die "vcluster up: --links: bad item '$item' (want A-B:RATE, A and B node indices or names, e.g. 0-1:1gbit)"
        a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]} r=${BASH_REMATCH[3]}
        [[ $a =~ ^[0-9]+$ ]] || a=${a#"$NAME"}
        [[ $b =~ ^[0-9]+$ ]] || b=${b#"$NAME"}
        [[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ ]] && (( a < n && b < n )) ||
            die "vcluster up: --links: '$item' names a node that is not one of ${NAME}0..${NAME}$((n - 1))"
        (( a != b )) || die "vcluster up: --links: '$item' links a node to itself"
        rate_to_bps "$r" >/dev/null || die "vcluster up: --links: can't parse rate '$r' in '$item'"
        LINK_RATE_OF[$a,$b]=$r LINK_RATE_OF[$b,$a]=$r
    done
}

# -------------------------------------------------------------- teardown ----

teardown() {
    local ns pid link f
    slurm_stop
    # nodes: anything still running in them (stray ranks/daemons) is ours
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${NAME}[0-9]+$" || true); do
        for pid in $(ip netns pids "$ns" 2>/dev/null || true); do
            kill -TERM "$pid" 2>/dev/null || true
        done
        sleep 0.2
        for pid in $(ip netns pids "$ns" 2>/dev/null || true); do
            kill -KILL "$pid" 2>/dev/null || true
        done
        ip netns delete "$ns" 2>/dev/null || true   # takes the veth pair with it
    done
    # veths whose netns never got created (a failed `up`)
    for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^${NAME}[0-9]+[hn]$" || true); do
        ip link delete "$link" 2>/dev/null || true
    done
    if ip link show "$BRIDGE" >/dev/null 2>&1; then
        ip link delete "$BRIDGE" type bridge
    fi
    # per-node hosts files, only the ones we wrote (marker line)
    for f in /etc/netns/"$NAME"[0-9]*/hosts; do
        [[ -e $f ]] || continue
        if grep -q "^$HOSTS_MARKER" "$f"; then
            rm -f "$f"
            rmdir "$(dirname "$f")" 2>/dev/null || true
        fi
    done
    rmdir /etc/netns 2>/dev/null || true   # only if nobody else uses it
    if [[ -d $STATE_DIR ]]; then
        for f in "$STATE_DIR"/uts/* "$STATE_DIR"/ipc/*; do
            [[ -e $f ]] || continue
            umount "$f" 2>/dev/null || umount -l "$f" 2>/dev/null || true
        done
    fi
    rm -rf "$STATE_DIR"
}

# ----------------------------------------------------------------- slurm ----
#
# A real Slurm (Debian's slurmctld/slurmd 22.05 + munge) on the emulated
# nodes.  What it took (each point measured on Debian 12):
#   * munged runs with its own key and socket under <state>/slurm (the
#     socket's directory must be 755, the key's 700, or munged refuses);
#     slurm.conf points every daemon and client at it (AuthInfo=socket=).
#   * slurmd runs inside the node's namespaces via `ip netns exec` (so its
#     tasks see the node's /sys/class/net and /etc/netns/<node>/hosts, as the
#     launch agent's do).  That mount namespace has a fresh /sys without the
#     cgroup mounts, and slurmd 22.05 refuses to start when its cgroup plugin
#     autodetects nothing ("Unable to initialize cgroup plugin"); an explicit
#     CgroupPlugin=cgroup/v1 in cgroup.conf initialises without a mount, and
#     nothing uses it (proctrack/linuxproc, task/none).
#   * /tmp is shared by all nodes: the pmix plugin's per-step directory
#     (/tmp/spmix_appdir_<uid>_<step>) then exists twice and the second
#     node's step fails ("File exists").  TmpFS=<state>/slurm/tmp/%n gives
#     each node its own (the pmix plugin expands %n in TmpFS).
#   * Each node has CPUs=<slots> with SlurmdParameters=config_overrides, so
#     --slots above the core count (as with the hostfiles) does not drain it.
#   * SlurmctldHost is this machine's short hostname (slurmctld checks it)
#     with the bridge address, so the nodes reach it over the bridge.  Its
#     port is the first free one from 6817 on (several clusters can be up).
#   * The TaskProlog runs for the batch step too: the batch shell gets the
#     same settings, because what mpiexec.mpich starts inside a job (hydra's
#     proxies are srun tasks, but the ranks get mpiexec's own environment and
#     its -genv values) only sees them from there.

require_slurm() {
    local c missing=()
    for c in slurmctld slurmd munged srun sbatch sinfo scontrol; do
        command -v "$c" >/dev/null 2>&1 || missing+=("$c")
    done
    (( ${#missing[@]} == 0 )) ||
        die "vcluster up --slurm: ${missing[*]} not found; install Debian's slurmctld slurmd slurm-client munge (bash tools/install-deps.sh does)"
}

# First TCP port from $1 on that nothing listens on in the root namespace.
free_port() {
    local p=$1
    while [[ -n $(ss -Hltn "sport = :$p" 2>/dev/null) ]]; do
        p=$((p + 1))
        (( p < $1 + 200 )) || die "no free TCP port in $1..$((p - 1)) for slurmctld"
    done
    echo "$p"
}

slurm_up() {
    local slots=$1 sd=$STATE_DIR/slurm node ip
    mkdir -p "$sd/munge" "$sd/munge-run" "$sd/state" "$sd/log" "$sd/spool" "$sd/tmp"
    chmod 700 "$sd/munge"
    chmod 755 "$sd" "$sd/munge-run" "$sd/spool"
    head -c 1024 /dev/urandom >"$sd/munge/munge.key"
    chmod 400 "$sd/munge/munge.key"
    # 9>&-: daemons must not inherit the vcluster lock (fd 9), or every later
    # up/down on this machine waits for it until the daemon dies (lead's fix)
    munged 9>&- --socket="$sd/munge-run/munge.socket" --key-file="$sd/munge/munge.key" \
        --log-file="$sd/log/munged.log" --pid-file="$sd/munge-run/munged.pid" \
        --seed-file="$sd/munge/munged.seed" || { note "munged failed: $(tail -n 3 "$sd/log/munged.log" 2>/dev/null)"; return 1; }

    SLURM_PORT=$(free_port 6817)
    local host; host=$(hostname -s)
    cat >"$sd/slurm.conf" <<CONF
# written by compi vcluster up --slurm for the emulated cluster '$NAME';
# removed by compi vcluster down.  Use with SLURM_CONF=$sd/slurm.conf
ClusterName=$NAME
SlurmctldHost=$host($SUBNET.1)
SlurmctldPort=$SLURM_PORT
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sd/munge-run/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$sd/state
SlurmdSpoolDir=$sd/spool/%n
TmpFS=$sd/tmp/%n
SlurmctldPidFile=$sd/slurmctld.pid
SlurmdPidFile=$sd/spool/slurmd-%n.pid
SlurmctldLogFile=$sd/log/slurmctld.log
SlurmdLogFile=$sd/log/slurmd-%n.log
TaskProlog=$sd/task_prolog
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
SlurmdParameters=config_overrides
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=30
CONF
    while read -r node ip; do
        echo "NodeName=$node NodeAddr=$ip NodeHostname=$node CPUs=$slots State=UNKNOWN" >>"$sd/slurm.conf"
        mkdir -p "$sd/spool/$node" "$sd/tmp/$node"
        chmod 1777 "$sd/tmp/$node"
    done <"$STATE_DIR/nodes"
    echo "PartitionName=compi Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$sd/slurm.conf"
    echo "CgroupPlugin=cgroup/v1" >"$sd/cgroup.conf"
    write_task_prolog "$sd/task_prolog"

    SLURM_CONF=$sd/slurm.conf slurmctld 9>&- -f "$sd/slurm.conf" ||
        { note "slurmctld failed: $(tail -n 5 "$sd/log/slurmctld.log" 2>/dev/null)"; return 1; }
    while read -r node ip; do
        ip netns exec "$node" nsenter --uts="$STATE_DIR/uts/$node" --ipc="$STATE_DIR/ipc/$node" -- \
            env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root SLURM_CONF="$sd/slurm.conf" \
            slurmd 9>&- -f "$sd/slurm.conf" -N "$node" ||
            { note "slurmd on $node failed: $(tail -n 5 "$sd/log/slurmd-$node.log" 2>/dev/null)"; return 1; }
    done <"$STATE_DIR/nodes"
    echo "SLURM_PORT=$SLURM_PORT" >>"$STATE_DIR/config"

    # ready when every node is idle (slurmd registered)
    local tries idle
    for ((tries = 0; tries < 100; tries++)); do
        idle=$(SLURM_CONF=$sd/slurm.conf sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
        (( idle == $(wc -l <"$STATE_DIR/nodes") )) && return 0
        sleep 0.3
    done
    note "Slurm nodes not idle after 30 s: $(SLURM_CONF=$sd/slurm.conf sinfo -N -h 2>&1 | tr '\n' ';')"
    return 1
}

# The emulated links' per-task settings (see the usage text).  Slurm runs
# it with the task's environment; lines "export NAME=VALUE" set the task's.
write_task_prolog() {
    cat >"$1" <<PROLOG
#!/bin/sh
# TaskProlog of the compi emulated cluster '$NAME' (generated by compi vcluster up --slurm).
echo "export UCX_TLS=sm,self,tcp"
echo "export UCX_NET_DEVICES=$NS_DEV"
echo "export OMPI_MCA_btl_tcp_if_include=$SUBNET.0/24"
echo "export OMPI_MCA_oob_tcp_if_include=$SUBNET.0/24"
fix=$STATE_DIR/ucx-force-close.so
if [ -f "\$fix" ]; then
    case ":\${LD_PRELOAD:-}:" in
        *":\$fix:"*) ;;
        *) echo "export LD_PRELOAD=\$fix\${LD_PRELOAD:+:\$LD_PRELOAD}" ;;
    esac
fi
PROLOG
    chmod 755 "$1"
}

# Stops the Slurm daemons of this cluster (slurmd ones die with their node's
# processes in teardown too).  Only processes named in our own pid files.
slurm_stop() {
    local sd=$STATE_DIR/slurm f pid i
    local -a pids=()
    [[ -d $sd ]] || return 0
    for f in "$sd"/spool/slurmd-*.pid "$sd/slurmctld.pid" "$sd/munge-run/munged.pid"; do
        [[ -f $f ]] || continue
        pid=$(cat "$f" 2>/dev/null || true)
        [[ $pid =~ ^[0-9]+$ ]] || continue
        case "$(cat "/proc/$pid/comm" 2>/dev/null)" in
            slurmd|slurmctld|munged) kill -TERM "$pid" 2>/dev/null && pids+=("$pid") ;;
        esac
    done
    local alive=1
    for ((i = 0; i < 50 && alive; i++)); do   # up to 5 s for all of them
        alive=0
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        (( alive )) && sleep 0.1
    done
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}

cmd_down() {
    require_root
    load_names
    take_lock
    teardown
    echo "vcluster '$NAME' is down"
}

# -------------------------------------------------------------------- up ----

cmd_up() {
    local nodes="" rate="" slots with_slurm=0 links="" racks="" cross=""
    slots=$(nproc)
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --nodes) nodes=${2:?}; shift 2 ;;
            --rate) rate=${2:?}; shift 2 ;;
            --slots) slots=${2:?}; shift 2 ;;
            --name) OPT_NAME=${2:?}; shift 2 ;;
            --subnet) OPT_SUBNET=${2:?}; shift 2 ;;
            --slurm) with_slurm=1; shift ;;
            --links) links=${2:?}; shift 2 ;;
            --racks) racks=${2:?}; shift 2 ;;
            --cross-rate) cross=${2:?}; shift 2 ;;
            -h|--help) usage; return 0 ;;
            *) die "vcluster up: unknown option '$1'" ;;
        esac
    done
    [[ $nodes =~ ^[0-9]+$ && $nodes -ge 1 && $nodes -le 200 ]] || die "vcluster up: --nodes N (1..200) is required"
    [[ -n $rate ]] || die "vcluster up: --rate is required (e.g. 100mbit, 1gbit)"
    rate_to_bps "$rate" >/dev/null || die "vcluster up: can't parse rate '$rate' (use a tc rate like 100mbit, 1gbit, 50mbps)"
    [[ $slots =~ ^[0-9]+$ && $slots -ge 1 ]] || die "vcluster up: --slots must be a positive integer"
    require_root
    (( with_slurm )) && require_slurm
    load_names
    parse_links "$nodes" "$links" "$racks" "$cross"
    RATE_DEFAULT=$rate NODES_N=$nodes
    take_lock

    local t0=$SECONDS
    # idempotent by re-creating: cheaper to get right than reconciling
    teardown

    # refuse a subnet someone else already uses on this machine
    if ip -4 -o addr show | grep -q " inet ${SUBNET//./\\.}\."; then
        die "subnet $SUBNET.0/24 is already in use here; pick another with --subnet"
    fi

    mkdir -p "$STATE_DIR/uts" "$STATE_DIR/ipc"
    ip link add "$BRIDGE" type bridge
    ip addr add "$SUBNET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up

    local i node ip host_dev ns_tmp
    : >"$STATE_DIR/nodes"
    for ((i = 0; i < nodes; i++)); do
        node=$NAME$i
        ip=$SUBNET.$((10 + i))
        host_dev=${node}h
        ns_tmp=${node}n
        ip netns add "$node"
        ip link add "$host_dev" type veth peer name "$ns_tmp"
        ip link set "$ns_tmp" netns "$node"
        ip -n "$node" link set "$ns_tmp" name "$NS_DEV"
        ip -n "$node" addr add "$ip/24" dev "$NS_DEV"
        ip -n "$node" link set lo up
        ip -n "$node" link set "$NS_DEV" up
        ip link set "$host_dev" master "$BRIDGE"
        ip link set "$host_dev" up
        if (( ${#LINK_RATE_OF[@]} )); then
            shape_node_links "$i" "$node" "$host_dev"   # per destination
        else
            shape_dev "$node" "$NS_DEV" "$rate"   # node -> bridge
            shape_dev "" "$host_dev" "$rate"      # bridge -> node
        fi

        # persistent UTS (hostname) and IPC namespaces for the node
        touch "$STATE_DIR/uts/$node" "$STATE_DIR/ipc/$node"
        unshare --uts="$STATE_DIR/uts/$node" --ipc="$STATE_DIR/ipc/$node" hostname "$node"
        echo "$node $ip" >>"$STATE_DIR/nodes"
    done

    write_state_files "$nodes" "$rate" "$slots"
    write_links_file "$nodes" "$rate"
    build_ucx_shim
    wait_for_links "$nodes"
    if (( with_slurm )); then
        slurm_up "$slots" || { teardown; die "vcluster up: Slurm did not come up (logs were in $STATE_DIR/slurm/log; removed with the cluster)"; }
    fi
    local lk=""
    (( ${#LINK_RATE_OF[@]} )) && lk=" (pairs: $(awk '$1 < $2 && $3 != "'"$rate"'" { printf "%s%s-%s:%s", s, $1, $2, $3; s = "," }' "$STATE_DIR/links"))"
    echo "vcluster '$NAME' up: $nodes nodes x $slots slots, $rate$lk, state in $STATE_DIR ($((SECONDS - t0))s)"
    if (( with_slurm )); then
        echo "slurm: partition compi, nodes $(awk '{printf "%s ", $1}' "$STATE_DIR/nodes")(slurmctld port $SLURM_PORT); use it with:"
        echo "    export SLURM_CONF=$STATE_DIR/slurm/slurm.conf"
    fi
}

# veth carrier/DAD is asynchronous; make sure every node reaches the bridge
# address before declaring the cluster usable.  bash /dev/tcp to a closed
# port returns "connection refused" as soon as the path works.
wait_for_links() {
    local n=$1 i node tries out
    for ((i = 0; i < n; i++)); do
        node=$NAME$i
        for ((tries = 0; tries < 50; tries++)); do
            out=$(timeout 1 ip netns exec "$node" bash -c "exec 3<>/dev/tcp/$SUBNET.1/9" 2>&1 || true)
            [[ $out == *refused* ]] && break
            sleep 0.1
        done
        [[ $out == *refused* ]] || note "warning: $node cannot reach $SUBNET.1 yet"
    done
}

# <state>/links: "nodeA nodeB rate" for every ordered pair (what each pair's
# traffic is shaped to; the default rate where no --links/--racks applies).
write_links_file() {  # NODES RATE
    local n=$1 i j
    : >"$STATE_DIR/links"
    for ((i = 0; i < n; i++)); do
        for ((j = 0; j < n; j++)); do
            (( i == j )) && continue
            echo "$NAME$i $NAME$j ${LINK_RATE_OF[$i,$j]:-$2}" >>"$STATE_DIR/links"
        done
    done
}

write_state_files() {
    local nodes=$1 rate=$2 slots=$3 node ip
    cat >"$STATE_DIR/config" <<CFG
# written by compi vcluster up; sourced by compi vcluster
NAME=$NAME
NODES=$nodes
RATE=$rate
SLOTS=$slots
BRIDGE=$BRIDGE
SUBNET=$SUBNET
NS_DEV=$NS_DEV
STATE_DIR=$STATE_DIR
CFG
    {
        echo "$HOSTS_MARKER ($NAME); removed by compi vcluster down"
        echo "127.0.0.1 localhost"
        echo "::1 localhost ip6-localhost ip6-loopback"
        echo "$SUBNET.1 $NAME-head"
    } >"$STATE_DIR/hosts"
    : >"$STATE_DIR/hostfile.openmpi"
    : >"$STATE_DIR/hostfile.mpich"
    : >"$STATE_DIR/hostfile.mpich-rr"
    while read -r node ip; do
        echo "$ip $node" >>"$STATE_DIR/hosts"
        echo "$node slots=$slots" >>"$STATE_DIR/hostfile.openmpi"
        echo "$node:$slots" >>"$STATE_DIR/hostfile.mpich"
        echo "$node:1" >>"$STATE_DIR/hostfile.mpich-rr"
    done <"$STATE_DIR/nodes"
    while read -r node ip; do
        mkdir -p "/etc/netns/$node"
        cp "$STATE_DIR/hosts" "/etc/netns/$node/hosts"
    done <"$STATE_DIR/nodes"
    write_agent
}

# See dev/cmd/vcluster_ucx_close.c: without it MPICH jobs over UCX tcp
# hang in MPI_Finalize about half the time.  Built per `up` (needs a C
# compiler and UCX headers, both there when MPICH's dev package is).
build_ucx_shim() {
    local src=$COMPI_DEV_DIR/vcluster_ucx_close.c out=$STATE_DIR/ucx-force-close.so
    if [[ -f /usr/include/ucp/api/ucp.h ]] && command -v cc >/dev/null &&
        cc -shared -fPIC -O2 -o "$out" "$src" -lucp -ldl 2>"$STATE_DIR/ucx-shim.log"; then
        return 0
    fi
    note "warning: could not build $out (see $STATE_DIR/ucx-shim.log); MPICH jobs may hang in MPI_Finalize"
}

# The ssh stand-in.  Generated self-contained (state dir baked in) so it
# works whatever the cwd/PATH of the MPI daemon that calls it.
write_agent() {
    cat >"$STATE_DIR/agent" <<AGENT
#!/usr/bin/env bash
# ssh replacement for the compi emulated cluster '$NAME' (generated by
# compi vcluster up).  Usage as ssh: agent [ssh options] HOST COMMAND...
# Open MPI: --mca plm_rsh_agent <this>; MPICH: -launcher ssh -launcher-exec <this>
set -euo pipefail
STATE=$STATE_DIR
# skip ssh options; these take an argument (hydra passes -x, others none)
while [[ \$# -gt 0 && \$1 == -* ]]; do
    case "\$1" in
        -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;
        --) shift; break ;;
        *) shift ;;
    esac
done
[[ \$# -ge 1 ]] || { echo "compi-vcluster agent: no host given" >&2; exit 255; }
host=\$1; shift
host=\${host#*@}   # user@host
node=\$(awk -v h="\$host" '\$1 == h || \$2 == h { print \$1; exit }' "\$STATE/nodes")
if [[ -z \$node ]]; then
    echo "compi-vcluster agent: unknown host '\$host' (nodes: \$(awk '{printf "%s ", \$1}' "\$STATE/nodes"))" >&2
    exit 255
fi
# ip netns exec (not nsenter --net) because it also gives the command a
# private mount of /sys for the node's netns: UCX finds its TCP interface
# through /sys/class/net.  Like ssh, the remote side gets a login-like
# environment, not ours.
exec ip netns exec "\$node" nsenter --uts="\$STATE/uts/\$node" --ipc="\$STATE/ipc/\$node" -- \\
    env -i HOME="\${HOME:-/root}" USER="\${USER:-root}" LOGNAME="\${LOGNAME:-root}" \\
        SHELL=/bin/bash PATH="\$PATH" LANG="\${LANG:-C.UTF-8}" \\
        \${TMPDIR:+TMPDIR="\$TMPDIR"} \\
        /bin/bash -c "\$*"
AGENT
    chmod +x "$STATE_DIR/agent"
}

# ---------------------------------------------------------------- status ----

cmd_status() {
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --name) OPT_NAME=${2:?}; shift 2 ;;
            -h|--help) usage; return 0 ;;
            *) die "vcluster status: unknown option '$1'" ;;
        esac
    done
    load_names
    if [[ ! -f $STATE_DIR/config ]]; then
        echo "vcluster '$NAME': down"
        return 0
    fi
    load_state
    # shellcheck disable=SC2153  # NODES/SLOTS/RATE come from the state's config
    echo "vcluster '$NAME': $NODES nodes x $SLOTS slots, rate $RATE (each direction of each link)"
    echo "bridge $BRIDGE $SUBNET.1/24 (root namespace), state $STATE_DIR"
    printf '%-10s %-16s %-12s %s\n' NODE ADDRESS HOSTNAME "EGRESS QDISC (node side)"
    local node ip hn q
    while read -r node ip; do
        hn=$(nsenter --uts="$STATE_DIR/uts/$node" hostname 2>/dev/null || echo "?")
        q=$(ip netns exec "$node" tc qdisc show dev "$NS_DEV" 2>/dev/null | grep -m1 -oE '(tbf|htb).*' || echo "MISSING")
        [[ $q == htb* ]] && q="htb, per destination: $(awk -v n="$node" '$1 == n { printf "%s%s %s", s, $2, $3; s = ", " }' "$STATE_DIR/links")"
        if ! ip netns list | awk '{print $1}' | grep -qx "$node"; then q="NETNS MISSING"; fi
        printf '%-10s %-16s %-12s %s\n' "$node" "$ip" "$hn" "$q"
    done <"$STATE_DIR/nodes"
    echo "hostfiles: $STATE_DIR/hostfile.openmpi $STATE_DIR/hostfile.mpich"
    echo "agent:     $STATE_DIR/agent"
    if [[ -n ${SLURM_PORT:-} ]]; then
        echo "slurm:     slurmctld port $SLURM_PORT; export SLURM_CONF=$STATE_DIR/slurm/slurm.conf"
        SLURM_CONF=$STATE_DIR/slurm/slurm.conf sinfo -N 2>&1 | sed 's/^/           /' || true
    fi
}

# ------------------------------------------------------------------ exec ----

cmd_exec() {
    [[ $# -ge 1 ]] || die "vcluster exec NODE -- COMMAND..."
    local node=$1; shift
    [[ ${1:-} == -- ]] && shift
    load_state
    exec "$STATE_DIR/agent" "$node" "$@"
}

# ------------------------------------------------------------------- run ----

cmd_run() {
    local mpi="" preload="" use_compi=0 build_dir="" map=block placement=""
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --placement) placement=${2:?}; shift 2 ;;
            --mpi) mpi=${2:?}; shift 2 ;;
            --preload) preload=${2:?}; shift 2 ;;
            --compi) use_compi=1; shift ;;
            --build-dir) build_dir=${2:?}; shift 2 ;;
            --map) map=${2:?}; shift 2 ;;
            --name) OPT_NAME=${2:?}; shift 2 ;;
            -h|--help) usage; return 0 ;;
            --) shift; break ;;
            *) break ;;   # first launcher argument
        esac
    done
    [[ $# -ge 1 ]] || die "vcluster run: nothing to run (usage: compi vcluster run [opts] -- [mpirun] args...)"
    load_state

    local launcher=""
    if is_launcher_word "$1"; then
        launcher=$1; shift
        if [[ -z $mpi ]]; then
            mpi=$(mpi_of_launcher "$launcher")
            [[ -n $mpi ]] || die "can't tell which MPI '$launcher' belongs to; pass --mpi openmpi|mpich"
        fi
    fi
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    if [[ -n $launcher ]]; then
        local lm; lm=$(mpi_of_launcher "$launcher")
        [[ -z $lm || $lm == "$mpi" ]] || die "--mpi $mpi but '$launcher' is $lm's launcher"
    else
        launcher=$(launcher_for_mpi "$mpi")
    fi
    case "$map" in block|rr) ;; *) die "--map block|rr" ;; esac
    local -a penv=()
    if [[ -n $placement ]]; then
        placement_check "$placement"
        placement_np_check "$placement" "$@"
        placement=$(readlink -f "$placement")
        local h
        while IFS= read -r h; do
            grep -q "^$h " "$STATE_DIR/hostfile.openmpi" ||
                die "--placement: host '$h' ($placement/machinefile) is not a node of this cluster ($(awk '{printf "%s ", $1}' "$STATE_DIR/hostfile.openmpi"))"
        done < <(sort -u "$placement/machinefile")
        mapfile -t penv < <(placement_env "$placement")
    fi

    if (( use_compi )); then
        [[ -z $preload ]] || die "--compi and --preload are exclusive"
        preload=$(compi_lib_for "$mpi" "$build_dir")
    fi
    if [[ -n $preload ]]; then
        [[ -f $preload ]] || die "--preload: no such file '$preload'"
        preload=$(readlink -f "$preload")
    fi

    local -a cmd
    # shellcheck disable=SC2054  # commas are MCA list syntax, not separators
    if [[ $mpi == openmpi ]]; then
        local hostfile=$STATE_DIR/hostfile.openmpi
        [[ -n $placement ]] && hostfile=$placement/machinefile
        cmd=("$launcher"
             --hostfile "$hostfile"
             --mca plm_rsh_agent "$STATE_DIR/agent"
             --mca plm_rsh_no_tree_spawn 1
             --mca pml ob1 --mca osc '^ucx'
             --mca btl tcp,self,vader
             --mca btl_tcp_if_include "$SUBNET.0/24"
             --mca oob_tcp_if_include "$SUBNET.0/24"
             # every emulated node sees the same cores: Open MPI's default
             # binding would pin each node's first rank to core 0, all nodes'
             # ranks onto one core (measured: 4 ms latency instead of 10 us)
             --bind-to none)
        if [[ -n $placement ]]; then cmd+=(--mca rmaps seq)   # rank i on line i
        elif [[ $map == rr ]]; then cmd+=(--map-by node); else cmd+=(--map-by slot); fi
        local pv; for pv in "${penv[@]}"; do cmd+=(-x "$pv"); done
        [[ -n $preload ]] && cmd+=(-x "LD_PRELOAD=$preload")
        if (( use_compi )); then
            local v; for v in $(compi_env_names); do cmd+=(-x "$v"); done
        fi
        cmd+=("$@")
        local -a unset_args
        mapfile -t unset_args < <(tool_var_unset_args)
        exec env "${unset_args[@]}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${cmd[@]}"
    else
        local hf=$STATE_DIR/hostfile.mpich
        [[ $map == rr ]] && hf=$STATE_DIR/hostfile.mpich-rr
        [[ -n $placement ]] && hf=$placement/machinefile   # one line per rank, in order
        # shellcheck disable=SC2054
        cmd=("$launcher"
             -launcher ssh -launcher-exec "$STATE_DIR/agent"
             -iface "$BRIDGE"
             -f "$hf"
             -genv UCX_TLS sm,self,tcp
             -genv UCX_NET_DEVICES "$NS_DEV")
        # the finalize-hang fix goes first; the user's library after it
        local ld=$preload
        if [[ -f $STATE_DIR/ucx-force-close.so ]]; then
            ld=$STATE_DIR/ucx-force-close.so${preload:+:$preload}
        fi
        [[ -n $ld ]] && cmd+=(-genv LD_PRELOAD "$ld")
        if (( use_compi )); then
            local v; for v in $(compi_env_names); do cmd+=(-genv "$v" "${!v}"); done
        fi
        local pv; for pv in "${penv[@]}"; do cmd+=(-genv "${pv%%=*}" "${pv#*=}"); done
        cmd+=("$@")
        local -a unset_args
        mapfile -t unset_args < <(tool_var_unset_args)
        exec env "${unset_args[@]}" "${cmd[@]}"
    fi
}

# ------------------------------------------------------------------ main ----

main() {
    local sub=${1:-}
    [[ $# -gt 0 ]] && shift
    case "$sub" in
        up) cmd_up "$@" ;;
        down)
            while [[ $# -gt 0 ]]; do
                case "$1" in
                    --name) OPT_NAME=${2:?}; shift 2 ;;
                    -h|--help) usage; return 0 ;;
                    *) die "vcluster down: unknown option '$1'" ;;
                esac
            done
            cmd_down ;;
        status) cmd_status "$@" ;;
        run) cmd_run "$@" ;;
        exec) cmd_exec "$@" ;;
        ""|-h|--help|help) usage ;;
        *) die "vcluster: unknown action '$sub' (up|down|status|run|exec)" ;;
    esac
}

main "$@"
