// Server cold start: spawn the built vmhub-server and time until the MCP `initialize` answer
// arrives (process start, module loading, config, store open + migrations, plugin discovery).
// Also the size of the tools/list answer, which agents pay for in tokens: the default toolsets and all.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectServer, percentile, round, runAsScript, SERVER_BIN } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 15);

function coldStart(db) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [SERVER_BIN], { env: { PATH: process.env.PATH, HOME: process.env.HOME, VMHUB_DB: db, VMHUB_LOG_LEVEL: 'error' }, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) {
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        child.kill();
        resolve(ms);
      }
    });
    child.on('error', reject);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) + '\n');
  });
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-cold-'));
  try {
    await coldStart(join(dir, 'warm.db')); // first run compiles nothing, but fills the OS file cache
    const times = [];
    for (let i = 0; i < RUNS; i++) times.push(await coldStart(join(dir, `db-${i}.db`)));
    // The default toolsets (VMHUB_TOOLSETS unset) and every tool (all).
    const list = async (toolsets) => {
      const client = await connectServer({ VMHUB_DB: join(dir, 'list.db'), VMHUB_TOOLSETS: toolsets });
      const { tools } = await client.listTools();
      await client.close();
      return { tools: tools.length, bytes: Buffer.byteLength(JSON.stringify({ tools })) };
    };
    const [byDefault, all] = [await list(''), await list('all')];
    return { runs: RUNS, median_ms: round(percentile(times, 50)), p95_ms: round(percentile(times, 95)), min_ms: round(Math.min(...times)), tools: byDefault.tools, tools_list_bytes: byDefault.bytes, tools_all: all.tools, tools_list_all_bytes: all.bytes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await runAsScript(import.meta.url, run);
