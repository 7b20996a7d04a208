#!/usr/bin/env sh
# Register vmhub with Claude Code (user scope).
claude mcp add --scope user vmhub -- npx -y @vmhub/server
