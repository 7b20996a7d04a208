#!/usr/bin/env bash
# The whole test suite, on a fresh machine: prepares everything (scripts/setup.sh), then runs
# every package's tests through turbo (one package at a time: the machine has 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
pnpm run typecheck
pnpm run lint
pnpm test
