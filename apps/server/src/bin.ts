#!/usr/bin/env node
// Entry point. It first refuses a Node.js older than 22 in one line: on Node 20 the server would
// start and then answer every tool call with INTERNAL (better-sqlite3 is built for Node 22+).
// Nothing is imported before that check but node:module, and this file must stay parseable by
// old Node versions (no syntax newer than ES2020 here; cli.ts is only imported after the check).
import module from 'node:module';

const MIN_NODE_MAJOR = 22;
const major = Number(process.versions.node.split('.')[0]);
if (!(major >= MIN_NODE_MAJOR)) {
  process.stderr.write(`vmhub-server needs Node.js ${MIN_NODE_MAJOR} or newer, but this is Node.js ${process.version} (${process.execPath}): install Node.js ${MIN_NODE_MAJOR}+ (https://nodejs.org, or \`nvm install ${MIN_NODE_MAJOR}\`) and run it with that.\n`);
  process.exit(1);
}
// What agents typed and saw (the store and its WAL, the audit file, reaper.log, screenshots,
// recordings) is for this user alone: every file and folder the server (and the reaper it
// starts, which inherits this) creates is 0600 / 0700.
process.umask(0o077);
// Node's on-disk compile cache is enabled before anything else loads, so every later start skips
// parsing and compiling the server's modules (cold start is paid by every MCP client).
module.enableCompileCache?.();
await import('./cli.ts');
