// The audit log: one JSON line per tool call (who, lease, tool, outcome, code, duration), and
// nothing from the arguments, so typed text, file contents and URLs never land in it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { connect, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';

let box: Sandbox;
let s: Session;
let file = '';
before(async () => { box = sandbox(); file = join(box.dir, 'audit.jsonl'); s = await connect(box, { VMHUB_AUDIT_FILE: file }, 'auditing-client'); });
after(async () => { await s.close(); box.cleanup(); });

it('server: one audit line per tool call, secrets never recorded', async () => {
  const lease = (await waitReady(s, (await s.call('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id)).lease_id;
  await s.call('vm_type', { lease_id: lease, text: 'my-password-123' });
  await s.call('vm_put_file', { lease_id: lease, path: 'secret.txt', content: 'TOP-SECRET-CONTENT' });
  await s.call('vm_key', { lease_id: lease, keys: 'ctrl+notakey' });
  await s.call('vm_lease_release', { lease_id: lease });
  await new Promise((r) => setTimeout(r, 300));
  const text = readFileSync(file, 'utf8');
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  const tools = lines.map((l) => l.tool);
  for (const t of ['vm_lease_create', 'vm_type', 'vm_put_file', 'vm_key', 'vm_lease_release']) assert.ok(tools.includes(t), `${t} audited`);
  const key = lines.find((l) => l.tool === 'vm_key');
  assert.deepEqual([key.outcome, key.code, key.lease_id, key.owner], ['error', 'INVALID_REQUEST', lease, 'auditing-client']);
  assert.ok(lines.every((l) => typeof l.duration_ms === 'number' && !Number.isNaN(Date.parse(l.at))));
  assert.ok(!text.includes('my-password-123') && !text.includes('TOP-SECRET-CONTENT'), 'arguments never reach the audit log');
});
