#!/usr/bin/env sh
# Register vmhub with Claude Code (user scope), run from this checkout over stdio.
# Build first (source scripts/env.sh && pnpm install && pnpm run build). The Node that runs the
# server must be the one that built it (better-sqlite3 is compiled for that Node), 22 or newer:
# this script registers the absolute path of the `node` on your PATH now.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
node=$(command -v node) || { echo "no node on PATH: source scripts/env.sh first" >&2; exit 1; }
"$node" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)' || { echo "$node is Node $("$node" --version): vmhub needs 22 or newer (source scripts/env.sh)" >&2; exit 1; }
[ -f "$repo/apps/server/dist/bin.js" ] || { echo "$repo/apps/server/dist/bin.js is missing: pnpm run build" >&2; exit 1; }
claude mcp add --scope user vmhub -- "$node" "$repo/apps/server/dist/bin.js"
