#!/usr/bin/env bash
# The whole test suite, on a fresh machine: prepares everything (scripts/setup.sh), then runs
# every package's tests through turbo (one package at a time: the machine has 2 cores), and
# closes with one line adding up every package's node:test counts.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
pnpm run typecheck
pnpm run lint
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
pnpm test 2>&1 | tee "$log" || status=$?
passed=$(grep -Eo 'ℹ pass [0-9]+' "$log" | awk '{s += $3} END {print s + 0}')
failed=$(grep -Eo 'ℹ fail [0-9]+' "$log" | awk '{s += $3} END {print s + 0}')
# CI keeps only the tail of the output: repeat each failing test with its error at the end.
if [ "$failed" != 0 ]; then
  echo
  echo "failing tests, with their errors:"
  awk '/failing tests:/ { split($0, a, ":"); prefix = a[1]; on = 1; next }
       on && index($0, prefix ":") != 1 { on = 0 }
       on { print; if (++n >= 300) exit }' "$log"
fi
echo
# What this machine was, for a failure seen only on another one.
echo "machine: $(nproc) cpus, kernel $(uname -r), $(free -g | awk '/^Mem/ {print $2 " GiB"}'), $(df -h --output=avail . | tail -1 | tr -d ' ') free here," \
  "docker $(docker info --format '{{.ServerVersion}} {{.Driver}} cgroup v{{.CgroupVersion}}' 2>/dev/null || echo down)," \
  "$(ipcs -m 2>/dev/null | grep -c '^0x') SysV shm segments, ulimit -n $(ulimit -n) -u $(ulimit -u)," \
  "dockerd's: $(awk '/open files|processes/ {print $(NF-2)}' "/proc/$(pgrep -xo dockerd)/limits" 2>/dev/null | paste -sd/), load $(cut -d' ' -f1-3 /proc/loadavg)"
# Which variables the run was started with (names only): a test that passes here and fails there
# may depend on one (a foot with no SHELL runs the login shell, nobody's nologin, and closes).
echo "environment: $(env | cut -d= -f1 | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | sort | paste -sd' ')"
echo "${passed} passed, ${failed} failed"
exit "$status"
