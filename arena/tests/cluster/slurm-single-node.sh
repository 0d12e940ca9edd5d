#!/usr/bin/env bash
# A throw-away single-node Slurm cluster on localhost, for tests that must run real
# Slurm jobs (arena/tests/slurm.rs). Debian 12 packages; no systemd, no cgroups; runs as
# root. Everything (config, state, munge key and socket, logs, pid files) lives in DIR.
#
#   slurm-single-node.sh start DIR        start munged, slurmctld, slurmd; print the
#                                         `export SLURM_CONF=DIR/slurm.conf` clients need
#   slurm-single-node.sh stop DIR         cancel its jobs, stop its daemons, wait for them
#   slurm-single-node.sh run DIR CMD...   start, run CMD with SLURM_CONF set, stop (always)
#
# Installs slurmctld, slurmd, slurm-client and munge when missing (apt-get). Picks free TCP
# ports, so that clusters of several users of one machine do not collide. A failed start
# stops whatever it had started. About 2 s when the packages are installed.
set -euo pipefail
cmd=${1:?usage: $0 start|stop|run DIR [CMD...]}
D=${2:?state directory, e.g. a fresh temp dir}
D=$(cd "$(dirname "$D")" && pwd)/$(basename "$D")

log() { echo "slurm-single-node: $*" >&2; }

# Pids of this cluster's processes: the daemons (pid files) and any job step left over
# (slurmstepd and the jobs' processes carry SLURM_CONF=DIR/slurm.conf in their environment).
cluster_pids() {
  local f pid
  for f in "$D/run/slurmd.pid" "$D/run/slurmctld.pid" "$D/munge/munged.pid"; do
    [ -s "$f" ] && pid=$(cat "$f") && [ -d "/proc/$pid" ] && echo "$pid"
  done
  for f in /proc/[0-9]*/environ; do
    pid=${f#/proc/}; pid=${pid%/environ}
    [ "$pid" = $$ ] && continue
    if tr '\0' '\n' 2>/dev/null <"$f" | grep -qxF "SLURM_CONF=$D/slurm.conf"; then
      # Only Slurm itself: the test process that exported SLURM_CONF is not ours to kill.
      grep -q '^State:.*[Zz]' "/proc/$pid/status" 2>/dev/null && continue
      case "$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" in
        slurmstepd*|*slurmd*|*slurmctld*) echo "$pid" ;;
      esac
    fi
  done
  true
}

stop() {
  if [ -f "$D/slurm.conf" ] && [ -s "$D/run/slurmctld.pid" ]; then
    # Cancel every job first: slurmd then ends their steps itself.
    SLURM_CONF=$D/slurm.conf timeout 10 scancel --quiet --user="$(id -un)" 2>/dev/null || true
  fi
  local pids left
  pids=$(cluster_pids | sort -u)
  [ -z "$pids" ] && return 0
  kill $pids 2>/dev/null || true
  for _ in $(seq 50); do
    left=$(for p in $pids; do [ -d "/proc/$p" ] && ! grep -q '^State:.*[Zz]' "/proc/$p/status" 2>/dev/null && echo "$p"; done || true)
    [ -z "$left" ] && break
    sleep 0.2
  done
  if [ -n "${left:-}" ]; then
    log "killing what ignored SIGTERM: $left"
    kill -KILL $left 2>/dev/null || true
  fi
  log "stopped (pids $(echo $pids))"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    log "installing slurmctld slurmd slurm-client munge"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      slurmctld slurmd slurm-client munge >/dev/null
  fi
  # From here on, a failure stops whatever was started.
  trap 'log "start failed; stopping"; tail -n 20 "$D"/log/*.log >&2 2>/dev/null || true; stop' ERR
  mkdir -p "$D"/{munge,state,spool,log,run}
  chmod 755 "$D" "$D/munge" # munged insists on 0755 up the path
  mungekey --create --force --keyfile="$D/munge/munge.key"
  munged --key-file="$D/munge/munge.key" --socket="$D/munge/munge.socket" \
    --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" --seed-file="$D/munge/munged.seed"
  local cpus mem ctld_port d_port
  read -r cpus mem < <(slurmd -C | head -1 | tr ' ' '\n' | awk -F= '/^CPUs=/{c=$2}/^RealMemory=/{m=$2}END{print c,m}')
  ctld_port=$(free_port)
  d_port=$(free_port)
  while [ "$d_port" = "$ctld_port" ]; do d_port=$(free_port); done
  cat >"$D/slurm.conf" <<CONF
ClusterName=arena-test
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.socket
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=localhost CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$D/slurm.conf # every Slurm command needs it
  slurmctld                       # both daemonize and write their pid files
  slurmd -N localhost
  local state=""
  for _ in $(seq 60); do
    state=$(sinfo -h -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.5
  done
  if [ "$state" != idle ]; then
    log "the node is not idle after 30 s (state: ${state:-none})"
    false
  fi
  trap - ERR
  log "up: $(sinfo -h -o '%P %D %T %c CPUs') (ports $ctld_port, $d_port)"
  echo "export SLURM_CONF=$D/slurm.conf"
}

case $cmd in
start) start ;;
stop) stop ;;
run)
  shift 2
  trap stop EXIT
  start >/dev/null
  SLURM_CONF=$D/slurm.conf "$@"
  ;;
*)
  echo "usage: $0 start|stop|run DIR [CMD...]" >&2
  exit 2
  ;;
esac
