#!/usr/bin/env bash
# Test hosts on this one machine, for the tests of several machines at work on one library: each host a network
# namespace with an address of its own on a private network, 10.63.0.0/24, that a bridge in a namespace of its
# own joins. The machine's real network is never touched: no host has a route off the private network, and the
# machine's own namespace has no address on it (a packet sent there from outside the hosts would take the
# machine's default route, so talk to a host only from another host).
#   bash scripts/hosts.sh up                  make the hosts (anew, where they are there already)
#   bash scripts/hosts.sh down                remove them (stop what runs on them first)
#   bash scripts/hosts.sh address HOST        print the address of HOST
#   bash scripts/hosts.sh exec HOST COMMAND [ARGUMENTS]
#                                             run COMMAND on HOST: it takes this script's place, so that its
#                                             process id is the one the caller started
# The hosts: primary and replica (PostgreSQL servers), worker1 and worker2 (cbir index), server (cbir serve) and
# client (what asks the others). Making namespaces needs root.
set -euo pipefail

hosts=(primary replica worker1 worker2 server client)
prefix=facesearch-host-
network=facesearch-hosts

fail() {
    echo "hosts.sh: $*" >&2
    exit 1
}

# The address of host $1: 10.63.0.N, N its place in the list from 1.
address() {
    local index
    for index in "${!hosts[@]}"; do
        if [[ ${hosts[$index]} == "$1" ]]; then
            echo "10.63.0.$((index + 1))"
            return
        fi
    done
    fail "no host $1 (the hosts: ${hosts[*]})"
}

down() {
    local name
    for name in "${hosts[@]/#/$prefix}" "$network"; do
        if ip netns list | cut -d' ' -f1 | grep -qxF "$name"; then ip netns delete "$name"; fi
    done
}

up() {
    [[ $(id -u) == 0 ]] || fail "run me as root: making network namespaces needs it"
    down
    ip netns add "$network"
    ip -n "$network" link add bridge0 type bridge
    ip -n "$network" link set dev bridge0 up
    local host namespace
    for host in "${hosts[@]}"; do
        namespace=$prefix$host
        ip netns add "$namespace"
        ip -n "$namespace" link set dev lo up
        # A pair of linked interfaces: eth0 on the host, to-HOST on the bridge.
        ip link add eth0 netns "$namespace" type veth peer name "to-$host" netns "$network"
        ip -n "$network" link set dev "to-$host" master bridge0 up
        ip -n "$namespace" address add "$(address "$host")/24" dev eth0
        ip -n "$namespace" link set dev eth0 up
    done
}

case ${1:-} in
up) up ;;
down) down ;;
address) address "${2:?usage: hosts.sh address HOST}" ;;
exec)
    host=${2:?usage: hosts.sh exec HOST COMMAND [ARGUMENTS]}
    address "$host" >/dev/null
    shift 2
    exec ip netns exec "$prefix$host" "$@"
    ;;
*) fail "usage: hosts.sh up|down|address HOST|exec HOST COMMAND [ARGUMENTS]" ;;
esac
