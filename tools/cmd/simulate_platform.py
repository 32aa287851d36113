#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes a SimGrid platform (XML) and its hostfile for `compi simulate`.

  simulate_platform.py --topo cluster|fattree|dragonfly --nodes N --cores C
                       --rate 10Gbps --latency 1us [--oversub K]
                       --platform out.xml --hostfile out.hosts

cluster    N hosts on one switch: a private link per host (rate, latency) and
           a backbone that never limits (N x rate).
fattree    a two-level fat tree: leaves of up to 16 hosts, each leaf's uplinks
           carry 16/oversub hosts' worth (--oversub 2 = 2:1), SimGrid's
           FAT_TREE routing (its own model of multi-path).
dragonfly  SimGrid's DRAGONFLY: groups of chassis of routers of hosts, the
           counts chosen so that N hosts fit (extra hosts idle).
Every host gets C cores and speed 1 Gf (compi charges codec time by a
model, the applications' own computation by SMPI's measurement, see
docs/simulate.md). The hostfile lists each host C times: ranks fill a node
before the next, as a block placement by a launcher does."""
import argparse
import math
import sys


def fattree_spec(nodes, oversub):
    leaf = min(16, nodes)
    leaves = math.ceil(nodes / leaf)
    if leaves == 1:
        return f"1;{leaf};1;1", leaf
    up = max(1, leaf // max(1, oversub))
    # 2 levels: leaves of `leaf` hosts, `leaves` leaf switches under `up` spines,
    # each spine linked once to every leaf switch
    return f"2;{leaf},{leaves};1,{up};1,1", leaf * leaves


def dragonfly_spec(nodes):
    # groups, chassis per group, routers per chassis, hosts per router
    hosts_per_router = 4
    routers = 4
    chassis = 2
    per_group = hosts_per_router * routers * chassis
    groups = max(1, math.ceil(nodes / per_group))
    return f"{groups},1;{chassis},1;{routers},1;{hosts_per_router}", groups * per_group


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--topo", choices=["cluster", "fattree", "dragonfly"], default="cluster")
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--cores", type=int, default=1)
    ap.add_argument("--rate", default="10Gbps", help="link rate, SimGrid units (1Gbps, 25Gbps, 100Mbps)")
    ap.add_argument("--latency", default="1us")
    ap.add_argument("--oversub", type=int, default=1, help="fat tree oversubscription K (K:1)")
    ap.add_argument("--platform", required=True)
    ap.add_argument("--hostfile", required=True)
    a = ap.parse_args()
    if a.nodes < 1 or a.cores < 1:
        sys.exit("simulate_platform: --nodes and --cores must be at least 1")
    common = (f'prefix="node-" suffix="" speed="1Gf" core="{a.cores}" bw="{a.rate}" lat="{a.latency}" '
              f'loopback_bw="100GBps" loopback_lat="0us"')
    if a.topo == "cluster":
        backbone = f'bb_bw="{a.nodes}00Gbps" bb_lat="0us"'
        body = f'  <cluster id="sim" radical="0-{a.nodes - 1}" {common} {backbone}/>'
        total = a.nodes
    elif a.topo == "fattree":
        spec, total = fattree_spec(a.nodes, a.oversub)
        body = (f'  <cluster id="sim" radical="0-{total - 1}" {common} topology="FAT_TREE" '
                f'topo_parameters="{spec}"/>')
    else:
        spec, total = dragonfly_spec(a.nodes)
        body = (f'  <cluster id="sim" radical="0-{total - 1}" {common} topology="DRAGONFLY" '
                f'topo_parameters="{spec}"/>')
    with open(a.platform, "w") as f:
        f.write('<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
                '<platform version="4.1">\n' + body + "\n</platform>\n")
    with open(a.hostfile, "w") as f:
        for n in range(a.nodes):
            f.write(f"node-{n}:{a.cores}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
