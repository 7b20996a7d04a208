#!/usr/bin/env sh
# Register a vmhub that serves HTTP (vmhub-server --http) with Claude Code (user scope).
# VMHUB_HTTP_TOKEN: the server's token (or your http.tokens entry's); VMHUB_URL: where it listens.
set -eu
claude mcp add --scope user --transport http vmhub "${VMHUB_URL:-http://127.0.0.1:8787/mcp}" \
  --header "Authorization: Bearer ${VMHUB_HTTP_TOKEN:?set VMHUB_HTTP_TOKEN to the token of the server}"
