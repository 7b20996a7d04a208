#!/usr/bin/env node
import { main } from './main.ts';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`vmhub-reaper: unexpected failure: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
