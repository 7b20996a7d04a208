#!/usr/bin/env node
// vmhub's main job, end to end: an agent-style session through the official MCP SDK client
// against the built server — lease a Linux desktop, wait until ready, look at it, open a
// terminal, type a command, read its output back from the guest, release.
//   node examples/session.mjs [--template debian-x11] [--out DIR]
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { values } = parseArgs({ options: { template: { type: 'string', default: 'debian-x11' }, out: { type: 'string', default: 'demo-out' } } });
const out = resolve(values.out);
const shots = resolve(out, 'screenshots');
mkdirSync(shots, { recursive: true });
const bin = fileURLToPath(new URL('../apps/server/dist/bin.js', import.meta.url));

const t0 = Date.now();
const say = (msg) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${msg}`);

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [bin],
  env: { ...process.env, VMHUB_SCREENSHOT_DIR: shots, VMHUB_DB: process.env.VMHUB_DB ?? resolve(out, 'vmhub.db'), VMHUB_INSTANCE: process.env.VMHUB_INSTANCE ?? 'demo', VMHUB_LOG_LEVEL: 'warn' },
  stderr: 'inherit',
});
const client = new Client({ name: 'vmhub-demo', version: '1.0.0' });
await client.connect(transport);
say(`connected to ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}`);

async function call(name, args = {}) {
  const started = Date.now();
  const r = await client.callTool({ name, arguments: args });
  const sc = r.structuredContent ?? {};
  if (r.isError) throw new Error(`${name} → ${sc.code}: ${sc.message}\n  hint: ${sc.hint}`);
  say(`${name} ${JSON.stringify(args).slice(0, 90)} → ok (${Date.now() - started} ms)`);
  return sc;
}

let leaseId;
try {
  const { templates } = await call('vm_list_templates');
  const t = templates.find((x) => x.id === values.template);
  if (!t) throw new Error(`template ${values.template} not offered; have: ${templates.map((x) => x.id).join(', ')}`);
  say(`template ${t.id}: ${t.availability}${t.reason ? ` (${t.reason})` : ''}; capabilities: ${t.capabilities.join(' ')}`);
  if (t.availability !== 'available') throw new Error(`template ${t.id} is ${t.availability}: ${t.reason}`);

  const lease = await call('vm_lease_create', { template: t.id, ttl_seconds: 600 });
  leaseId = lease.lease_id;
  say(`lease ${leaseId} is ${lease.status}, expires ${lease.expires_at}`);
  let status = lease;
  while (['provisioning', 'starting'].includes(status.status)) {
    status = await call('vm_lease_status', { lease_id: leaseId, wait_seconds: 20 });
    say(`  stages: ${status.stages.map((s) => `${s.name}=${s.status}`).join(' ')}`);
  }
  if (status.status !== 'ready') throw new Error(`lease ended ${status.status}: ${JSON.stringify(status.error)}`);

  const first = await call('vm_screenshot', { lease_id: leaseId });
  say(`screenshot ${first.width}x${first.height} (screen ${first.screen.width}x${first.screen.height}, ${first.bytes} bytes) saved to ${first.file}`);

  const launched = await call('vm_launch', { lease_id: leaseId, app: 'xterm', wait_seconds: 10 });
  say(`xterm running as pid ${launched.pid}, window ${launched.window?.id} "${launched.window?.title}"`);
  await call('vm_focus', { lease_id: leaseId, window: launched.window.id });
  const command = 'echo "hello from vmhub on $(uname -s), $(date -u +%Y)" > ~/vmhub-demo.txt';
  await call('vm_type', { lease_id: leaseId, text: `${command}\n` });

  let file;
  for (let i = 0; i < 20 && !file; i++) {
    const r = await client.callTool({ name: 'vm_get_file', arguments: { lease_id: leaseId, path: 'vmhub-demo.txt' } });
    if (!r.isError && r.structuredContent.content?.includes('hello from vmhub')) file = r.structuredContent;
    else await new Promise((res) => setTimeout(res, 250));
  }
  if (!file) throw new Error('the command typed into xterm did not produce ~/vmhub-demo.txt');
  say(`vm_get_file ${file.path} (${file.size} bytes): ${file.content.trim()}`);

  const second = await call('vm_screenshot', { lease_id: leaseId });
  say(`screenshot after typing saved to ${second.file}`);
  const windows = await call('vm_list_windows', { lease_id: leaseId });
  say(`windows: ${windows.windows.map((w) => `${w.id} "${w.title}" ${w.width}x${w.height}+${w.x}+${w.y}${w.focused ? ' (focused)' : ''}`).join('; ')}`);
} finally {
  if (leaseId) {
    const released = await call('vm_lease_release', { lease_id: leaseId }).catch((e) => ({ status: `release failed: ${e.message}` }));
    say(`lease ${leaseId}: ${released.status}`);
  }
  await client.close();
}
say(`done. screenshots in ${shots}`);
