#!/usr/bin/env bash
# vmhub's main job on a fresh machine: prepare everything (scripts/setup.sh: packages, Node,
# build, Docker engine, golden images), then run one agent session end to end through the MCP
# SDK client against the built server (examples/session.mjs). Prints a transcript and where the
# screenshots are.
set -euo pipefail
cd "$(dirname "$0")/.."
VMHUB_GOLDENS=debian-x11 bash scripts/setup.sh
source scripts/env.sh
node examples/session.mjs "$@"
