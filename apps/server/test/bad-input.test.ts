// Bad input to every tool gets a typed error, and the server keeps serving.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Store } from '@vmhub/store';
import { errorCode, stdioSuite, waitReady } from './harness.ts';

const ALL_TOOLS = ['vm_list_templates', 'vm_capabilities', 'vm_health', 'vm_lease_create', 'vm_lease_status', 'vm_lease_renew', 'vm_lease_release', 'vm_screenshot', 'vm_inspect', 'vm_list_windows', 'vm_focus', 'vm_close', 'vm_launch', 'vm_click', 'vm_type', 'vm_key', 'vm_paste', 'vm_drag', 'vm_scroll', 'vm_dispatch', 'vm_put_file', 'vm_get_file', 'vm_clone_repo', 'vm_exec'];
const LEASE_TOOLS = ALL_TOOLS.filter((t) => !['vm_list_templates', 'vm_capabilities', 'vm_health', 'vm_lease_create'].includes(t));
const HUGE = 'x'.repeat(10 * 1024 * 1024);

let live = '';
const suite = stdioSuite({
  setup: async ({ s }) => {
    const created = await s.call('vm_lease_create', { template: 'fake-desktop' });
    live = (await waitReady(s, created.structuredContent.lease_id)).lease_id;
  },
});

async function expectCode(tool: string, args: unknown, code: string | string[]) {
  const r = await suite.s.client.callTool({ name: tool, arguments: args as Record<string, unknown> });
  const codes = Array.isArray(code) ? code : [code];
  assert.ok(r.isError, `${tool}(${JSON.stringify(args).slice(0, 120)}) should fail`);
  const sc = r.structuredContent as any;
  assert.ok(codes.includes(sc.code), `${tool}: expected ${codes.join('|')}, got ${JSON.stringify(sc).slice(0, 300)}`);
  assert.equal(typeof sc.message, 'string');
  assert.equal(typeof sc.retryable, 'boolean');
  assert.equal(typeof sc.hint, 'string');
}

describe('server: bad input', () => {
  it('unknown fields and wrong types on every tool → INVALID_REQUEST', async () => {
    for (const tool of ALL_TOOLS) {
      await expectCode(tool, { lease_id: live, surprise: 1 }, 'INVALID_REQUEST');
      if (tool !== 'vm_list_templates' && tool !== 'vm_health') await expectCode(tool, { lease_id: 42, template: 42 }, 'INVALID_REQUEST');
    }
  });

  it('missing required fields → INVALID_REQUEST naming the field', async () => {
    for (const tool of [...LEASE_TOOLS, 'vm_lease_create']) {
      const r = await suite.s.call(tool, {});
      assert.equal(errorCode(r), 'INVALID_REQUEST', tool);
      assert.match(r.structuredContent.message, /missing field/);
    }
    await expectCode('vm_click', { lease_id: live, x: 1 }, 'INVALID_REQUEST');
    await expectCode('vm_capabilities', {}, 'INVALID_REQUEST');
  });

  it('unknown lease on every lease tool → NOT_FOUND', async () => {
    const args: Record<string, Record<string, unknown>> = { vm_focus: { window: 'a' }, vm_close: { window: 'a' }, vm_launch: { app: 'a' }, vm_click: { x: 1, y: 1 }, vm_type: { text: 'a' }, vm_key: { keys: 'a' }, vm_paste: { text: 'a' }, vm_drag: { from: { x: 1, y: 1 }, to: { x: 1, y: 1 } }, vm_scroll: { x: 1, y: 1, direction: 'up' }, vm_dispatch: { verb: 'echo' }, vm_put_file: { path: '/a', content: 'a' }, vm_get_file: { path: '/a' }, vm_clone_repo: { url: 'https://h/r' }, vm_exec: { command: ['true'] } };
    for (const tool of LEASE_TOOLS) await expectCode(tool, { lease_id: '00000000-0000-4000-8000-000000000000', ...(args[tool] ?? {}) }, 'NOT_FOUND');
  });

  it('negative and huge coordinates → INVALID_REQUEST', async () => {
    await expectCode('vm_click', { lease_id: live, x: -1, y: 5 }, 'INVALID_REQUEST');
    await expectCode('vm_click', { lease_id: live, x: 1e12, y: 5, coordinate_space: 'screen' }, 'INVALID_REQUEST');
    await expectCode('vm_click', { lease_id: live, x: 5000, y: 5, coordinate_space: 'screen' }, 'INVALID_REQUEST');
    await expectCode('vm_drag', { lease_id: live, from: { x: 1, y: 1 }, to: { x: 99999, y: 1 }, coordinate_space: 'screen' }, 'INVALID_REQUEST');
    await expectCode('vm_scroll', { lease_id: live, x: 10, y: -3, direction: 'down' }, 'INVALID_REQUEST');
    await expectCode('vm_screenshot', { lease_id: live, region: { x: 1000, y: 0, width: 500, height: 10 } }, 'INVALID_REQUEST');
  });

  it('a 10 MB string → INVALID_REQUEST, and the server keeps serving', async () => {
    await expectCode('vm_type', { lease_id: live, text: HUGE }, 'INVALID_REQUEST');
    await expectCode('vm_lease_create', { template: HUGE }, 'INVALID_REQUEST');
    await expectCode('vm_exec', { lease_id: live, shell: HUGE }, 'INVALID_REQUEST');
    const health = await suite.s.call('vm_health');
    assert.equal(health.isError, undefined);
  });

  it('unknown template → NOT_FOUND listing the known ones', async () => {
    const r = await suite.s.call('vm_lease_create', { template: 'no-such-template' });
    assert.equal(errorCode(r), 'NOT_FOUND');
    assert.match(r.structuredContent.message, /fake-desktop/);
    await expectCode('vm_capabilities', { template: 'no-such-template' }, 'NOT_FOUND');
  });

  it('path traversal and bad file arguments → INVALID_REQUEST; missing file → NOT_FOUND', async () => {
    await expectCode('vm_get_file', { lease_id: live, path: '../../etc/shadow' }, 'INVALID_REQUEST');
    await expectCode('vm_get_file', { lease_id: live, path: '/home/user/../../etc/shadow' }, 'INVALID_REQUEST');
    await expectCode('vm_put_file', { lease_id: live, path: 'a/../../b', content: 'x' }, 'INVALID_REQUEST');
    await expectCode('vm_put_file', { lease_id: live, path: '/tmp/x', content: 'a', content_base64: 'YQ==' }, 'INVALID_REQUEST');
    await expectCode('vm_put_file', { lease_id: live, path: '/tmp/x', content_base64: '%%%not base64' }, 'INVALID_REQUEST');
    await expectCode('vm_put_file', { lease_id: live, path: '/tmp/x\u0000y', content: 'a' }, 'INVALID_REQUEST');
    await expectCode('vm_get_file', { lease_id: live, path: '/no/such/file' }, 'NOT_FOUND');
    await expectCode('vm_exec', { lease_id: live, command: ['true'], cwd: '../x' }, 'INVALID_REQUEST');
    await expectCode('vm_clone_repo', { lease_id: live, url: 'file:///etc' }, 'POLICY_DENIED');
    await expectCode('vm_clone_repo', { lease_id: live, url: '/work' }, 'POLICY_DENIED');
    await expectCode('vm_clone_repo', { lease_id: live, url: 'https://user:secret@example.com/r.git' }, 'INVALID_REQUEST');
    await expectCode('vm_clone_repo', { lease_id: live, url: '--upload-pack=touch /tmp/pwn' }, 'INVALID_REQUEST');
  });

  it('bad keys, unknown verbs and exec without a command → INVALID_REQUEST', async () => {
    await expectCode('vm_key', { lease_id: live, keys: 'ctrl+notakey' }, 'INVALID_REQUEST');
    await expectCode('vm_dispatch', { lease_id: live, verb: 'rm_rf' }, 'INVALID_REQUEST');
    await expectCode('vm_exec', { lease_id: live }, 'INVALID_REQUEST');
    await expectCode('vm_exec', { lease_id: live, command: [] }, 'INVALID_REQUEST');
    await expectCode('vm_lease_create', { template: 'fake-desktop', ttl_seconds: -5 }, 'INVALID_REQUEST');
    await expectCode('vm_lease_status', { lease_id: live, wait_seconds: 60 }, 'INVALID_REQUEST');
  });

  it('an expired lease → LEASE_EXPIRED on every lease tool; release still answers', async () => {
    const created = await suite.s.call('vm_lease_create', { template: 'fake-desktop' });
    const lease = await waitReady(suite.s, created.structuredContent.lease_id);
    const store = new Store({ path: suite.box.db });
    await store.updateLease(lease.lease_id, { expires_at: Date.now() - 1000 });
    await store.close();
    await expectCode('vm_screenshot', { lease_id: lease.lease_id }, 'LEASE_EXPIRED');
    await expectCode('vm_exec', { lease_id: lease.lease_id, command: ['true'] }, 'LEASE_EXPIRED');
    await expectCode('vm_lease_renew', { lease_id: lease.lease_id }, 'LEASE_EXPIRED');
    const status = await suite.s.call('vm_lease_status', { lease_id: lease.lease_id });
    assert.ok(['expired', 'reaped'].includes(status.structuredContent.status));
    const released = await suite.s.call('vm_lease_release', { lease_id: lease.lease_id });
    assert.equal(released.isError, undefined);
  });

  it('unknown tool → error result, server still healthy', async () => {
    const r = await suite.s.client.callTool({ name: 'vm_nope', arguments: {} }).catch((e: Error) => ({ isError: true, structuredContent: { code: 'PROTOCOL', message: e.message } }));
    assert.ok(r.isError);
    const health = await suite.s.call('vm_health');
    assert.ok(['ok', 'degraded'].includes(health.structuredContent.status));
    const list = await suite.s.call('vm_list_templates');
    assert.ok(list.structuredContent.templates.length >= 3);
  });
});
