#!/usr/bin/env sh
# Register vmhub with Claude Code (user scope), from the npm registry.
# @vmhub/server is not published yet: until it is, use claude-code-checkout.sh (a built checkout)
# or `npm i -g` the packed tarballs and register `vmhub-server` (see README.md, "Use it from your MCP client").
claude mcp add --scope user vmhub -- npx -y @vmhub/server
