#!/usr/bin/env bash
# Starts a single-node Slurm on this machine (munge, slurmctld and slurmd on
# localhost) for the test of `compare --slurm` (cmd/slurm_test.go), as
# Debian's slurm-wlm 22.05 runs it: one partition, this node's real CPUs and
# memory, no cgroups (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none),
# so that it also runs in a container without cgroup delegation.
#
# Idempotent: a Slurm it started before, with the same configuration, is
# left running; a configuration that changed is rewritten and the daemons
# restarted. Needs root and the Debian packages slurm-wlm and munge
# (scripts/ensure-tools.sh installs them). It exits 0 once the node accepts
# jobs, and otherwise 1 with the reason and the logs' last lines on stderr.
#
#   scripts/slurm-localhost.sh          start (or check) it
#   scripts/slurm-localhost.sh stop     stop the daemons it started
set -uo pipefail

conf_dir=/etc/slurm
conf=$conf_dir/slurm.conf
state=/var/spool/slurmctld
spool=/var/spool/slurmd
logs=/var/log/slurm
run=/run/slurm

say() { echo "slurm-localhost: $*" >&2; }
fail() {
	say "$*"
	for f in "$logs/slurmctld.log" "$logs/slurmd.log" /var/log/munge/munged.log; do
		[ -s "$f" ] && { echo "--- last lines of $f" >&2; tail -5 "$f" >&2; }
	done
	exit 1
}

alive() { # alive PIDFILE: the daemon of PIDFILE is running
	[ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

stop_daemons() {
	for d in slurmd slurmctld; do
		if alive "$run/$d.pid"; then
			kill "$(cat "$run/$d.pid")" 2>/dev/null
			for _ in $(seq 50); do alive "$run/$d.pid" || break; sleep 0.1; done
		fi
	done
}

if [ "${1:-}" = stop ]; then
	stop_daemons
	exit 0
fi

[ "$(id -u)" = 0 ] || fail "needs root (it writes $conf and starts the daemons)"
for t in munged slurmctld slurmd sbatch scontrol sinfo; do
	command -v "$t" >/dev/null 2>&1 || fail "$t is not installed: run scripts/ensure-tools.sh as root (Debian's slurm-wlm and munge)"
done

# munge: a key, then the daemon, as the munge user where there is one.
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
if [ ! -s /etc/munge/munge.key ]; then
	if command -v mungekey >/dev/null 2>&1; then
		mungekey --create --keyfile=/etc/munge/munge.key >/dev/null 2>&1
	else
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
	fi
fi
if id munge >/dev/null 2>&1; then
	chown munge:munge /etc/munge /etc/munge/munge.key /run/munge /var/lib/munge /var/log/munge
fi
chmod 0700 /etc/munge
chmod 0400 /etc/munge/munge.key
chmod 0755 /run/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	if id munge >/dev/null 2>&1; then
		runuser -u munge -- munged >/dev/null 2>&1 || munged --force >/dev/null 2>&1
	else
		munged --force >/dev/null 2>&1
	fi
	for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
	munge -n 2>/dev/null | unmunge >/dev/null 2>&1 || fail "munged did not start"
fi

# slurm.conf: this node as slurmd sees it (CPUs, sockets, cores, memory).
host=$(hostname -s)
node=$(slurmd -C 2>/dev/null | head -n 1)
case "$node" in
NodeName=*) ;;
*) fail "slurmd -C did not describe this node: $node" ;;
esac
mkdir -p "$conf_dir" "$state" "$spool" "$logs" "$run"
new=$(mktemp)
cat >"$new" <<EOF
# Written by kerneltune's scripts/slurm-localhost.sh: a single-node Slurm for tests.
ClusterName=localhost
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=600
KillWait=10
SchedulerParameters=defer_batch
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
SlurmctldLogFile=$logs/slurmctld.log
SlurmdLogFile=$logs/slurmd.log
StateSaveLocation=$state
SlurmdSpoolDir=$spool
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# slurmd -C's line ends with its uptime on the next line, which head cut.
if ! cmp -s "$new" "$conf"; then
	say "writing $conf (restarting the daemons)"
	stop_daemons
	cp "$new" "$conf"
fi
rm -f "$new"

if ! alive "$run/slurmctld.pid"; then
	slurmctld >/dev/null 2>&1 || fail "slurmctld did not start"
fi
if ! alive "$run/slurmd.pid"; then
	slurmd >/dev/null 2>&1 || fail "slurmd did not start"
fi

# Wait until the controller answers and the node takes jobs.
for _ in $(seq 60); do
	st=$(sinfo -h -n "$host" -o %t 2>/dev/null | head -n 1)
	case "$st" in
	idle | mix | alloc | comp) exit 0 ;;
	down* | drain* | drng*) scontrol update NodeName="$host" State=RESUME >/dev/null 2>&1 ;;
	esac
	sleep 0.5
done
fail "the node $host does not take jobs after 30 s (sinfo: ${st:-no answer})"
