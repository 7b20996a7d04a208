// QEMU (TCG) + the console adapter through the built server and the SDK client: nothing is
// installed in the guest; screen and keyboard go through QMP. The effect of typed keys is checked
// on the host in the guest's serial log; teardown is checked on the host's process table.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, it } from 'node:test';
import { connect, errorCode, waitReady, type Session } from './harness.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(join(tmpdir(), 'vmhub-qemu-it-'));
const instance = `qc${randomBytes(3).toString('hex')}`;
const stateDir = join(dir, 'state');
let s: Session;
let lease = '';

before(async () => {
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ instance, db: join(dir, 'vmhub.db'), providers: { qemu: { state_dir: stateDir } } }));
  s = await connect({ dir, instance, db: join(dir, 'vmhub.db'), fakeDir: '', configFile: config, cleanup: () => {} });
});
after(async () => {
  if (lease) await s.call('vm_lease_release', { lease_id: lease }).catch(() => undefined);
  await s.close();
  await run('pkill', ['-f', `vmhub-${instance}-`]).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

function serialLog(): string {
  const machine = readdirSync(stateDir).find((d) => d.includes(lease));
  return machine ? readFileSync(join(stateDir, machine, 'serial.log'), 'utf8') : '';
}

it('qemu + console: lease → ready → screenshot shows the console → typed command runs in the guest → release', { timeout: 300_000 }, async () => {
  const t = (await s.call('vm_list_templates')).structuredContent.templates.find((x: any) => x.id === 'tiny-console');
  assert.equal(t?.availability, 'available', `tiny-console: ${t?.reason}`);
  const created = await s.call('vm_lease_create', { template: 'tiny-console' });
  lease = created.structuredContent.lease_id;
  const ready = await waitReady(s, lease, 240);
  assert.equal(ready.status, 'ready', JSON.stringify(ready));

  // the console shows text: OCR finds the shell prompt or the banner
  let text = '';
  for (let i = 0; i < 10 && !/tiny|vmhub|#/.test(text); i++) {
    const shot = await s.call('vm_screenshot', { lease_id: lease, format: 'png' });
    assert.equal(shot.isError, undefined, JSON.stringify(shot.structuredContent));
    const png = join(dir, `console-${i}.png`);
    writeFileSync(png, Buffer.from((shot.content.find((c: any) => c.type === 'image') as any).data, 'base64'));
    text = (await run('tesseract', [png, 'stdout'])).stdout;
    if (!/tiny|vmhub|#/.test(text)) await sleep(2000);
  }
  assert.match(text, /tiny|vmhub|#/, `OCR of the console: ${JSON.stringify(text.slice(0, 200))}`);

  // keys typed at the hypervisor reach the guest's shell: its effect appears in the serial log
  const marker = `VMHUB-TYPED-${randomBytes(4).toString('hex').toUpperCase()}`;
  const typed = await s.call('vm_type', { lease_id: lease, text: `echo ${marker} > /dev/ttyS0` });
  assert.equal(typed.isError, undefined, JSON.stringify(typed.structuredContent));
  await s.call('vm_key', { lease_id: lease, keys: 'Return' });
  let log = '';
  for (let i = 0; i < 60 && !log.includes(marker); i++) { await sleep(500); log = serialLog(); }
  assert.ok(log.includes(marker), `the guest ran the typed command (serial log tail: ${log.slice(-300)})`);

  // bad input at the hypervisor level is refused before anything is sent
  assert.equal(errorCode(await s.call('vm_type', { lease_id: lease, text: 'café' })), 'INVALID_REQUEST');
  assert.equal(errorCode(await s.call('vm_key', { lease_id: lease, keys: 'ctrl+nosuchkey' })), 'INVALID_REQUEST');
  assert.equal(errorCode(await s.call('vm_click', { lease_id: lease, x: 5000, y: 1, coordinate_space: 'screen' })), 'INVALID_REQUEST');
  assert.equal(errorCode(await s.call('vm_exec', { lease_id: lease, command: ['true'] })), 'CAPABILITY_UNAVAILABLE');
  assert.equal(errorCode(await s.call('vm_list_windows', { lease_id: lease })), 'CAPABILITY_UNAVAILABLE');

  const machineDir = readdirSync(stateDir).find((d) => d.includes(lease))!;
  const identity = JSON.parse(readFileSync(join(stateDir, machineDir, 'identity.json'), 'utf8'));
  const pid: number = identity.pid ?? identity.qemu_pid;
  assert.ok(pid > 0 && existsSync(`/proc/${pid}`), 'qemu runs');
  const released = await s.call('vm_lease_release', { lease_id: lease });
  assert.equal(released.structuredContent.status, 'released');
  lease = '';
  for (let i = 0; i < 20 && existsSync(`/proc/${pid}`); i++) await sleep(250);
  assert.equal(existsSync(`/proc/${pid}`), false, 'the qemu process is gone');
  assert.equal(existsSync(join(stateDir, machineDir)), false, 'the state dir (and any overlay) is deleted');
});
