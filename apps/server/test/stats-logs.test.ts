// vm_lease_status {stats: true} and vm_logs on REAL engines, through the built server over MCP.
// Docker (debian-x11) and QEMU under TCG (tiny-console-agent with a disk): cpu_percent rises under
// load (`yes > /dev/null` in the guest; one sample idle, one loaded), the machine's own disk grows
// when the guest writes to it (the container's writable layer; the qcow2 overlay), memory and its
// limit and the uptime are there; vm_logs {source: console} holds a line the guest wrote to its
// console (Docker: the container's main process's stdout, /proc/1/fd/1; QEMU: /dev/ttyS0),
// bounded by tail and scrubbed of a credential written beside it; vm_logs {source: session} the
// lease's events. Needs the debian-x11 and tiny-console-agent goldens and qemu-img.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ok as check } from './snapshot-checks.ts';
import { connect, leaseReady, machineBox, type Session } from './harness.ts';
import { diskTemplate } from './qemu-disk.ts';

const SECRET = 'ghp_0123456789abcdefghijABCDEFGHIJ0123';

/** Stats and logs checks for one lease; `sh` runs a shell command in the guest as root. */
/** `overhead`: what the machine's process may hold beyond its limit (qemu's RSS counts its own memory and TCG's code buffer: provider-qemu's qemu-stats.ts). */
async function statsAndLogs(s: Session, lease: string, sh: (cmd: string) => Promise<string>, console: string, grow: string, overhead = 0): Promise<void> {
  const ok = (name: string, args: Record<string, unknown>) => check(s, name, args);
  const stats = async () => (await ok('vm_lease_status', { lease_id: lease, stats: true })).stats;
  const idle = await stats();
  for (const k of ['cpu_percent', 'memory_bytes', 'memory_limit_bytes', 'disk_bytes', 'uptime_seconds']) assert.equal(typeof idle[k], 'number', `${k} in ${JSON.stringify(idle)}`);
  assert.ok(idle.memory_bytes > 0 && idle.memory_bytes <= idle.memory_limit_bytes + overhead, JSON.stringify(idle));
  assert.ok(idle.uptime_seconds > 0 && idle.uptime_seconds < 3600, JSON.stringify(idle));

  await sh('for i in 1 2; do (yes >/dev/null 2>&1 </dev/null &); done');
  try {
    // Samples under load (each a ~1 s window; the load has started by the second): the best of three, as the host may be busy.
    const loaded = Math.max((await stats()).cpu_percent, (await stats()).cpu_percent, (await stats()).cpu_percent);
    assert.ok(loaded > idle.cpu_percent + 30 && loaded > 40, `cpu_percent idle ${idle.cpu_percent}, under load ${loaded}`);
  } finally {
    await sh('kill $(pidof yes) 2>/dev/null; true');
  }
  await sh(grow);
  const grown = await stats();
  assert.ok(grown.disk_bytes >= idle.disk_bytes + 3 * 1024 * 1024, `disk_bytes ${idle.disk_bytes} → ${grown.disk_bytes} after 4 MiB written`);

  const marker = `VMHUB-CONSOLE-LINE-${Date.now()}`;
  await sh(`for i in 1 2 3 4 5 6; do echo "filler $i" > ${console}; done; echo "${marker} GITHUB_TOKEN=${SECRET}" > ${console}`);
  const log = await ok('vm_logs', { lease_id: lease, tail: 3 });
  assert.equal(log.lines.length, 3, JSON.stringify(log));
  assert.equal(log.truncated, true);
  const line = log.lines.find((l: string) => l.includes(marker));
  assert.ok(line, `the console line is in ${JSON.stringify(log.lines)}`);
  assert.match(line, /GITHUB_TOKEN=\*\*\*/);
  assert.doesNotMatch(JSON.stringify(log), new RegExp(SECRET), 'the credential is scrubbed');
  const events = await ok('vm_logs', { lease_id: lease, source: 'session' });
  assert.match(events.lines[0], / lease\.created /);
  assert.ok(events.lines.some((l: string) => / lease\.ready /.test(l)), JSON.stringify(events.lines));
}

describe('stats and logs on Docker (debian-x11)', { timeout: 600_000 }, () => {
  const box = machineBox('statsdx', 'sdk');
  let s: Session;
  let lease = '';
  before(async () => {
    box.write();
    s = await connect(box);
  });
  after(async () => {
    await box.end(s, [lease]);
  });

  it('cpu rises under load, the writable layer grows, the container\'s output holds the line its main process wrote', async () => {
    await leaseReady(s, { template: 'debian-x11', ttl_seconds: 900 }, 180, (id) => { lease = id; });
    // The desktop user may sudo; /proc/1/fd/1 is tini's stdout: the container log.
    const sh = async (cmd: string) => (await check(s, 'vm_exec', { lease_id: lease, command: ['sudo', '-n', 'sh', '-c', cmd], timeout_seconds: 60 })).stdout as string;
    await statsAndLogs(s, lease, sh, '/proc/1/fd/1', 'head -c 4194304 /dev/urandom > /var/tmp/grow.bin');
    const log = await check(s, 'vm_logs', { lease_id: lease, tail: 1 });
    assert.match(log.source, /container output/);
  });
});

describe('stats and logs on QEMU (TCG, tiny-console-agent with a disk)', { timeout: 900_000 }, () => {
  const box = machineBox('statsq', 'sq');
  let s: Session;
  let lease = '';
  before(async () => {
    box.write({ templates: [await diskTemplate(box.dir)], providers: { qemu: { state_dir: join(box.dir, 'qemu') } } });
    s = await connect(box);
  });
  after(async () => {
    await box.end(s, [lease]);
  });

  it('cpu rises under load, the overlay grows, the serial console holds the line written to ttyS0', async () => {
    await leaseReady(s, { template: 'tiny-disk', ttl_seconds: 900 }, 300, (id) => { lease = id; });
    const sh = async (cmd: string) => (await check(s, 'vm_exec', { lease_id: lease, shell: cmd, timeout_seconds: 60 })).stdout as string;
    // qemu's resident set is the guest memory it touched plus its own (CI saw 352 MB against 256).
    await statsAndLogs(s, lease, sh, '/dev/ttyS0', 'dd if=/dev/urandom of=/dev/vda bs=1M count=4 seek=16 2>/dev/null; sync', 512 * 1024 * 1024);
    const log = await check(s, 'vm_logs', { lease_id: lease, tail: 1 });
    assert.equal(log.source, 'serial console (ttyS0)');
  });
});
