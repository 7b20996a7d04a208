#!/usr/bin/env node
// Entry point. Node's on-disk compile cache is enabled before anything else loads, so every later
// start skips parsing and compiling the server's modules (cold start is paid by every MCP client).
import module from 'node:module';

module.enableCompileCache?.();
await import('./cli.ts');
