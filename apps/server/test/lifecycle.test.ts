// A full lease lifecycle against the conformance fake provider, through the built binary.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readFakeLedger } from '@vmhub/conformance/fake';
import { Store } from '@vmhub/store';
import { connect, errorCode, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';

let box: Sandbox;
let s: Session;
before(async () => { box = sandbox({ leases: { max_lifetime_seconds: 600, default_ttl_seconds: 300 } }); s = await connect(box, { VMHUB_SCREENSHOT_DIR: join(box.dir, 'shots') }); });
after(async () => { await s.close(); box.cleanup(); });

describe('server: lease lifecycle on the fake provider', () => {
  let leaseId = '';

  it('lists the fake template as available with its capabilities', async () => {
    const r = await s.call('vm_list_templates');
    const t = r.structuredContent.templates.find((x: any) => x.id === 'fake-desktop');
    assert.equal(t.availability, 'available');
    assert.ok(t.capabilities.includes('screenshot') && t.capabilities.includes('exec'));
    const stub = r.structuredContent.templates.find((x: any) => x.id === 'fake-stub');
    assert.equal(stub.availability, 'stub');
    assert.match(stub.reason, /no capabilities/);
  });

  it('create returns at once, status waits with progress notifications until ready', async () => {
    const started = Date.now();
    const created = await s.call('vm_lease_create', { template: 'fake-desktop', request_id: 'lifecycle-1' });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    assert.ok(Date.now() - started < 1500, 'create does not wait for provisioning');
    assert.ok(['provisioning', 'starting'].includes(created.structuredContent.status));
    leaseId = created.structuredContent.lease_id;
    assert.match(leaseId, /^[0-9a-f-]{36}$/);
    assert.ok(created.structuredContent.expires_at);

    const progress: string[] = [];
    const status = await s.client.callTool({ name: 'vm_lease_status', arguments: { lease_id: leaseId, wait_seconds: 20 } }, undefined, { onprogress: (p) => { progress.push(p.message ?? ''); } });
    const lease = status.structuredContent as any;
    assert.equal(lease.status, 'ready', JSON.stringify(lease));
    assert.ok(lease.stages.length >= 2 && lease.stages.every((x: any) => x.status === 'done'), JSON.stringify(lease.stages));
    assert.ok(progress.length >= 1, 'at least one progress notification');

    const again = await s.call('vm_lease_create', { template: 'fake-desktop', request_id: 'lifecycle-1' });
    assert.equal(again.structuredContent.lease_id, leaseId, 'same request_id → same lease');
    const other = await s.call('vm_lease_create', { template: 'fake-stub', request_id: 'lifecycle-1' });
    assert.equal(errorCode(other), 'ALREADY_EXISTS');
  });

  it('capabilities of the live lease', async () => {
    const r = await s.call('vm_capabilities', { lease_id: leaseId });
    assert.equal(r.structuredContent.adapter, 'fake');
    assert.equal(r.structuredContent.lease_id, leaseId);
    assert.ok(r.structuredContent.capabilities.length >= 17);
    assert.ok(r.structuredContent.verbs.some((v: any) => v.verb === 'desktop_state'));
  });

  it('screenshot → image content, saved file, and a click mapped from image to screen', async () => {
    const r = await s.call('vm_screenshot', { lease_id: leaseId, max_width: 512, max_height: 512 });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    const image = r.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
    const png = Buffer.from(image.data, 'base64');
    assert.equal(image.mimeType, 'image/png');
    assert.equal(png.readUInt32BE(16), r.structuredContent.width, 'PNG IHDR width matches');
    assert.equal(png.readUInt32BE(20), r.structuredContent.height, 'PNG IHDR height matches');
    assert.equal(r.structuredContent.screen.width, 1024);
    assert.equal(r.structuredContent.width, 512);
    assert.equal(r.structuredContent.scale, 0.5);
    assert.ok(r.structuredContent.expires_at);
    assert.ok(existsSync(r.structuredContent.file), 'screenshot saved to VMHUB_SCREENSHOT_DIR');
    // the Terminal window is at screen (40..520, 40..360): image (100, 100) → screen (200, 200)
    const click = await s.call('vm_click', { lease_id: leaseId, x: 100, y: 100 });
    assert.deepEqual([click.structuredContent.screen_x, click.structuredContent.screen_y], [200, 200]);
    const state = await s.call('vm_dispatch', { lease_id: leaseId, verb: 'desktop_state', args: {} });
    const desktop = state.structuredContent.result;
    assert.equal(desktop.clicks.at(-1).window, 'w1', 'the click landed on the Terminal window');
    const off = await s.call('vm_click', { lease_id: leaseId, x: 600, y: 100 });
    assert.equal(errorCode(off), 'INVALID_REQUEST', 'a point outside the 512-px image is refused, not clamped');
  });

  it('type, files and exec reach the guest', async () => {
    await s.call('vm_type', { lease_id: leaseId, text: 'héllo ✓ Привет 粘贴' });
    const state = await s.call('vm_dispatch', { lease_id: leaseId, verb: 'desktop_state', args: {} });
    assert.ok(state.structuredContent.result.typed.endsWith('héllo ✓ Привет 粘贴'));
    const put = await s.call('vm_put_file', { lease_id: leaseId, path: 'notes/a.txt', content: 'hello file' });
    assert.equal(put.structuredContent.path, '/home/user/notes/a.txt');
    const got = await s.call('vm_get_file', { lease_id: leaseId, path: '/home/user/notes/a.txt' });
    assert.equal(got.structuredContent.content, 'hello file');
    assert.equal(got.structuredContent.sha256, put.structuredContent.sha256);
    const ex = await s.call('vm_exec', { lease_id: leaseId, command: ['echo', 'hi', 'there'] });
    assert.equal(ex.structuredContent.exit_code, 0);
    assert.equal(ex.structuredContent.stdout, 'hi there\n');
  });

  it('renew is capped by the max lifetime', async () => {
    const r = await s.call('vm_lease_renew', { lease_id: leaseId, ttl_seconds: 86400 });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    const lease = r.structuredContent;
    const created = (await s.call('vm_lease_status', { lease_id: leaseId })).structuredContent.created_at;
    assert.ok(Date.parse(lease.expires_at) <= Date.parse(created) + 600_000 + 1000, 'expiry never passes created + max_lifetime');
  });

  it('release destroys the machine, is idempotent, and keeps a tombstone', async () => {
    const r = await s.call('vm_lease_release', { lease_id: leaseId });
    assert.equal(r.structuredContent.status, 'released', JSON.stringify(r.structuredContent));
    const again = await s.call('vm_lease_release', { lease_id: leaseId });
    assert.equal(again.structuredContent.status, 'released');
    const ledger = await readFakeLedger(box.fakeDir);
    assert.equal(ledger.filter((e) => e.op === 'create').length, 1);
    assert.equal(ledger.filter((e) => e.op === 'destroy').length, 1);
    const after = await s.call('vm_screenshot', { lease_id: leaseId });
    assert.equal(errorCode(after), 'LEASE_EXPIRED');
    const recreate = await s.call('vm_lease_create', { template: 'fake-desktop', request_id: 'lifecycle-1' });
    assert.equal(recreate.structuredContent.lease_id, leaseId, 'an old request_id never mints a new VM');
    assert.equal(recreate.structuredContent.status, 'released');
    const store = new Store({ path: box.db });
    const events = await store.listEvents({ lease_id: leaseId });
    assert.ok(events.some((e) => e.kind === 'lease.released'));
    await store.close();
  });

  it('a failing provision ends failed with a typed error and its machine destroyed', async () => {
    const created = await s.call('vm_lease_create', { template: 'fake-broken' });
    const lease = await waitReady(s, created.structuredContent.lease_id);
    assert.equal(lease.status, 'failed');
    assert.equal(lease.error.code, 'BOOT_TIMEOUT');
    const call = await s.call('vm_screenshot', { lease_id: lease.lease_id });
    assert.equal(errorCode(call), 'PROVISION_FAILED');
    // `failed` is written before the teardown runs: the machine goes right after (bounded wait).
    let destroyed = false;
    for (let i = 0; i < 50 && !destroyed; i++) {
      const ledger = await readFakeLedger(box.fakeDir);
      const identity = ledger.find((e) => e.op === 'create' && e.identity.endsWith(lease.lease_id))?.identity;
      destroyed = !!identity && ledger.some((e) => e.op === 'destroy' && e.identity === identity);
      if (!destroyed) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(destroyed, 'the failed machine was destroyed');
  });

  it('a lease not ready within the template\'s deadline fails with BOOT_TIMEOUT, whatever the provider does', async () => {
    const created = await s.call('vm_lease_create', { template: 'fake-slow' });
    const lease = await waitReady(s, created.structuredContent.lease_id);
    assert.equal(lease.status, 'failed', JSON.stringify(lease));
    assert.equal(lease.error.code, 'BOOT_TIMEOUT', 'the template\'s 1 s deadline decides, not the provider\'s 4 s wait');
  });
});
