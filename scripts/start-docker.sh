#!/usr/bin/env bash
# Start Debian's Docker engine if it is not answering yet (CI machines have no init system).
set -euo pipefail
if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then exit 0; fi
command -v dockerd >/dev/null || { echo "[vmhub] dockerd missing: apt-get install docker.io" >&2; exit 1; }
mkdir -p /var/log
# Its own session: a killed process group (a cancelled build, a test run stopped by a timeout)
# must not take the engine down with it.
# Containers inherit the engine's limits: give it docker.service's (LimitNOFILE/LimitNPROC=infinity),
# not those of whatever shell started it (RLIMIT_NPROC counts a uid's tasks in every container).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
ulimit -u unlimited 2>/dev/null || ulimit -u "$(ulimit -Hu)" 2>/dev/null || true
setsid nohup dockerd --iptables=false --ip-masq=false >/var/log/vmhub-dockerd.log 2>&1 < /dev/null &
for _ in $(seq 1 60); do
  if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then echo "[vmhub] dockerd $(docker version --format '{{.Server.Version}}') up" >&2; exit 0; fi
  sleep 1
done
echo "[vmhub] dockerd did not answer within 60 s; log:" >&2; tail -n 40 /var/log/vmhub-dockerd.log >&2; exit 1
