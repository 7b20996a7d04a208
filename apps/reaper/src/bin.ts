#!/usr/bin/env node
import { main } from './main.ts';

// The reaper writes the store (leases, events) and its log: for this user alone (0600 / 0700),
// whoever started it and with whatever umask. Set before main() runs: importing creates no file.
process.umask(0o077);

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`vmhub-reaper: unexpected failure: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
