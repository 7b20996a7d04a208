#!/bin/sh
# The Windows-MCP stand-in's session (PID 1's child under tini, as root): the stand-in server on
# the container's loopback, port 8000, as `windows-mcp serve --transport streamable-http --host
# 127.0.0.1 --port 8000` would run in a Windows guest. vmhub reaches it through the docker
# provider's port bridge (connect/forward to 127.0.0.1:8000), so the Host header it sees is a
# loopback one and the real server's Host check passes.
#   WINDOWS_MCP_AUTH_KEY          the Bearer key (the real server's variable); unset = no auth
#   WINDOWS_MCP_STANDIN_VERSION   0.8.2 (default) or 0.5.8
#   WINDOWS_MCP_STANDIN_FAULTS    optional JSON faults at start (see the package README)
set -eu
: "${WINDOWS_MCP_STANDIN_VERSION:=0.8.2}"
: "${WINDOWS_MCP_STANDIN_PORT:=8000}"
export WINDOWS_MCP_STANDIN_VERSION
[ -n "${WINDOWS_MCP_AUTH_KEY:-}" ] || echo "[vmhub] windows-standin: WINDOWS_MCP_AUTH_KEY is not set; the stand-in runs without auth" >&2
cd /
exec node /opt/windows-mcp/windows-mcp-standin.mjs serve --transport streamable-http --host 127.0.0.1 --port "$WINDOWS_MCP_STANDIN_PORT"
