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
echo
echo "${passed} passed, ${failed} failed"
exit "$status"
