#!/usr/bin/env bash
# Fills npm's cache (~/.npm, or npm_config_cache) with every third-party dependency of the
# published packages, so apps/server/test/installed.test.ts can `npm install --offline` the
# packed tarballs the way a user installs them, without the test touching the registry; and with
# the programs in apps/server/test/fixtures/npm-tools.json (test/npm-tool.ts installs them).
# Run by scripts/setup.sh after the build (it needs dist/); it uses the npm registry. Idempotent:
# a warm cache makes it a quick no-op install.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/env.sh
source scripts/env.sh

scratch=$(mktemp -d "${TMPDIR:-/tmp}/vmhub-warm-npm-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Check failures (exit 1) are the release's business; only a failed pack (2) stops the warm-up.
status=0
node scripts/pack.mjs --out "$scratch/packs" >/dev/null 2>&1 || status=$?
if [ "$status" -gt 1 ]; then node scripts/pack.mjs --out "$scratch/packs" >&2 || true; echo "[vmhub] packing failed: build first (pnpm run build)" >&2; exit 1; fi

mkdir -p "$scratch/install"
echo '{ "name": "vmhub-warm-npm-cache", "private": true }' > "$scratch/install/package.json"
# --ignore-scripts: the cache holds tarballs, not builds; native addons are built by the test.
# Every tarball (a superset of the server's closure) so each third-party range is resolved once.
(cd "$scratch/install" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error "$scratch"/packs/*.tgz >&2)
# The programs some tests run (the Claude Code CLI, another Node.js), at the versions they pin.
tools=$(node -e 'const p = require("./apps/server/test/fixtures/npm-tools.json"); console.log(Object.entries(p).filter(([k]) => !k.startsWith("/")).map(([k, v]) => `${k}@${v}`).join(" "))')
mkdir -p "$scratch/tools"
# shellcheck disable=SC2086
npm install --prefix "$scratch/tools" --no-audit --no-fund --ignore-scripts --loglevel=error $tools >&2
echo "[vmhub] npm cache warmed with the packed packages' dependencies and $tools ($(npm config get cache))" >&2
