/** Spike: the v2 server over stdio (serveStdio owns the era decision per connection). */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createSpikeServer } from './tools.ts';

serveStdio((rc) => createSpikeServer(rc), { onerror: (e) => process.stderr.write(`[spike stdio] ${e.message}\n`) });
