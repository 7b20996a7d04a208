// `vmhub-server doctor` through the built binary (fake plugins beside the installed providers),
// and vm_health's view of providers nobody configured (issue 11 items 3 and 6).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Provider } from '@vmhub/core';
import { notConfigured, providerHealth, tidyReason } from '../src/catalog.ts';
import { connect, defaultTemplates, runBin, sandbox, type Sandbox } from './harness.ts';

// The installed providers' own templates depend on this host (Docker engine, qemu goldens): off,
// so what the exit code says is decided by the templates each test configures.
// Built-in templates whose goldens depend on this host; the doctor tests look at the fake ones.
const HOST_TEMPLATES = ['debian-x11', 'debian-desktop', 'wayland-sway', 'tiny-console', 'tiny-console-agent'];
const boxes: Sandbox[] = [];
const box = (extra: Record<string, unknown> = {}, templates = defaultTemplates()) => {
  const b = sandbox({ disabled_templates: HOST_TEMPLATES, ...extra }, templates);
  boxes.push(b);
  return b;
};
after(() => { for (const b of boxes) b.cleanup(); });

const doctor = (b: Sandbox, args: string[] = [], env: Record<string, string> = {}) => runBin(b, ['doctor', ...args], { VMHUB_LOG_LEVEL: 'error', ...env });

const lines = (out: string) => out.trim().split('\n').filter((l) => /^[✔✖–] /.test(l));
const line = (out: string, re: RegExp) => lines(out).find((l) => re.test(l));

describe('server: doctor', () => {
  it('everything configured is usable: one line per check, exit 0; unconfigured Proxmox is –, not ✖', async () => {
    const b = box({}, [...defaultTemplates(), { id: 'pve-desk', provider: 'proxmox', adapter: 'x11', os: 'linux', golden: 'vmhub-golden' }]);
    const r = await doctor(b);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(line(r.stdout, /^. node /) ?? '', /^✔ node\s+Node\.js: v\d+/);
    assert.match(line(r.stdout, /^. config /) ?? '', new RegExp(`^✔ config\\s+${b.configFile}: instance "${b.instance}"`));
    assert.match(line(r.stdout, /^. store /) ?? '', new RegExp(`^✔ store\\s+${b.db}: writable, 0 open leases$`));
    assert.match(line(r.stdout, /^. reaper /) ?? '', /^– reaper\s+none running/);
    assert.match(line(r.stdout, /^. ocr /) ?? '', /^✔ ocr\s+tesseract \d+\.\d+\.\d+ \(eng\)$/);
    assert.match(line(r.stdout, /provider\s+proxmox/) ?? '', /^– provider\s+proxmox: not configured: node "default" has no API address: set VMHUB_NODE_DEFAULT_BASE_URL or PVE_HOST/);
    assert.match(line(r.stdout, /template\s+pve-desk/) ?? '', /^– template\s+pve-desk: provider "proxmox" is not configured$/);
    assert.match(line(r.stdout, /provider\s+fake/) ?? '', /^✔ provider\s+fake: /);
    for (const t of ['fake-desktop', 'fake-stub', 'fake-broken', 'fake-slow']) assert.match(line(r.stdout, new RegExp(`template\\s+${t}:`)) ?? '', /^✔ /, t);
    for (const l of lines(r.stdout).filter((x) => x.startsWith('✖'))) assert.match(l, /→ fix: /, `every ✖ says what to do: ${l}`);
    assert.doesNotMatch(r.stdout, /\[vmhub\]/, 'no component prefixes: each line names its component');
    assert.match(r.stdout.trim().split('\n').at(-1)!, /^ok: 4 templates usable/);
    assert.match(line(r.stdout, /^. snapshot /) ?? '', /^✔ snapshot\s+disk: 0 live snapshots use 0\.00 GiB of the 20\.00 GiB budget \(snapshots\.max_bytes\)$/);

    const json = JSON.parse((await doctor(b, ['--json'])).stdout);
    assert.equal(json.ok, true);
    const byKey = new Map(json.checks.map((c: any) => [`${c.check} ${c.subject}`, c]));
    assert.equal((byKey.get('provider proxmox') as any)?.status, 'skip');
    assert.equal((byKey.get('template fake-desktop') as any)?.status, 'ok');
    for (const c of json.checks) assert.ok(['ok', 'fail', 'skip'].includes(c.status) && typeof c.detail === 'string', JSON.stringify(c));
  });

  it('no tesseract: ocr is ✖ with the install hint but does not fail doctor; ocr.engine "none" is –', async () => {
    const b = box();
    const missing = await doctor(b, [], { VMHUB_TESSERACT: join(b.dir, 'no-such-tesseract') });
    assert.equal(missing.code, 0, missing.stdout + missing.stderr);
    assert.match(line(missing.stdout, /^. ocr /) ?? '', /^✖ ocr\s+.*no-such-tesseract.*→ fix: .*apt(-get)? install tesseract-ocr/);
    const off = await doctor(b, [], { VMHUB_OCR: 'none' });
    assert.match(line(off.stdout, /^. ocr /) ?? '', /^– ocr\s+turned off/);
  });

  it('a template that cannot be used is ✖ with its fix, and doctor exits 1', async () => {
    const b = box({}, [
      ...defaultTemplates(),
      { id: 'fake-gone', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:gone', provider_options: { unavailable_reason: 'golden fake:gone is missing: run `make fake-golden`' } },
      { id: 'fake-noadapter', provider: 'fake', adapter: 'nope', os: 'linux', golden: 'fake:golden' },
    ]);
    const r = await doctor(b);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(line(r.stdout, /template\s+fake-gone/), '✖ template  fake-gone: golden fake:gone is missing  → fix: run `make fake-golden`; or hide it with "disabled_templates": ["fake-gone"]');
    assert.match(line(r.stdout, /template\s+fake-noadapter/) ?? '', /^✖ template\s+fake-noadapter: adapter "nope" is not installed.*→ fix: install the plugin it names, or hide it/);
    assert.match(line(r.stdout, /template\s+fake-desktop/) ?? '', /^✔ /, 'the others are still fine');
    assert.equal(r.stdout.trim().split('\n').at(-1), '2 problems: template fake-gone, template fake-noadapter');
    const json = await doctor(b, ['--json']);
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stdout).ok, false);
  });

  it('a store that cannot be written is ✖ naming VMHUB_DB, exit 1', async () => {
    const b = box();
    // A path under a regular file: no user, root included, can create it.
    const db = join(b.configFile, 'sub', 'vmhub.db');
    const r = await doctor(b, [], { VMHUB_DB: db });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(line(r.stdout, /^. store /) ?? '', new RegExp(`^✖ store\\s+${db}: not writable: .*ENOTDIR.*→ fix: set VMHUB_DB \\(or "db" in the config\\) to a file this user can write`));
    assert.match(line(r.stdout, /template\s+fake-desktop/) ?? '', /^✔ /, 'the other checks still ran');
  });

  it('reaper: ✔ while one holds the store\'s reaper lock', async (t) => {
    const b = box();
    const { openStore } = await import('@vmhub/store');
    const store = openStore({ path: b.db }) as ReturnType<typeof openStore> & { acquireLock?: (n: string, h: string, u: number) => Promise<boolean>; releaseLock?: (n: string, h: string) => Promise<void> };
    if (!store.acquireLock || !store.releaseLock) { await store.close(); t.skip('this store has no locks yet'); return; }
    try {
      assert.equal(await store.acquireLock('reaper', 'reaper:doctor-test:1', Date.now() + 60_000), true);
      assert.match(line((await doctor(b)).stdout, /^. reaper /) ?? '', /^✔ reaper\s+running \(reaper:doctor-test:1\)$/);
      await store.releaseLock('reaper', 'reaper:doctor-test:1');
      assert.match(line((await doctor(b)).stdout, /^. reaper /) ?? '', /^– reaper\s+none running, and reaper\.autostart is off.*→ fix: run `vmhub-reaper` as a service/);
    } finally {
      await store.close();
    }
  });

  it('a bad command line exits 2 with usage', async () => {
    const r = await doctor(box(), ['--frob']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /usage: vmhub-server doctor \[--json\]/);
  });
});

describe('server: health and providers nobody configured', () => {
  let b: Sandbox;
  before(() => { b = box(); });

  /**
   * vm_health of a server on the box with `env`: its proxmox entry, after checking that the adb
   * device pool without devices in config is unconfigured too, the same way.
   */
  async function health(env: Record<string, string> = {}): Promise<{ h: any; pve: any }> {
    const s = await connect(b, env);
    try {
      const h = (await s.call('vm_health')).structuredContent;
      const pool = h.providers.find((p: any) => p.id === 'adb-pool');
      assert.equal(pool?.not_configured, true, JSON.stringify(pool));
      const pve = h.providers.find((p: any) => p.id === 'proxmox');
      assert.equal(pve.ok, false);
      return { h, pve };
    } finally {
      await s.close();
    }
  }

  it('vm_health: Proxmox without PVE_HOST is not_configured, one prefix, and does not make status degraded', async () => {
    const { h, pve } = await health();
    assert.equal(pve.not_configured, true);
    assert.equal(pve.reason.match(/\[vmhub\]/g)?.length, 1, pve.reason);
    assert.match(pve.reason, /^\[vmhub\] \[provider-proxmox\] node "default" has no API address/);
    const others = h.providers.filter((p: any) => p.id !== 'proxmox' && p.id !== 'adb-pool');
    assert.ok(others.every((p: any) => p.not_configured === undefined), 'only proxmox and the empty adb pool are unconfigured');
    const healthy = h.store.ok && others.every((p: any) => p.ok) && h.plugins.every((p: any) => p.ok);
    assert.equal(h.status, healthy ? 'ok' : 'degraded', `status follows the configured providers only: ${JSON.stringify(others)}`);
    assert.ok(others.some((p: any) => p.id === 'fake' && p.ok), 'the fake provider is up');
  });

  it('vm_health: a Proxmox that is configured but unreachable is degraded, not "not configured"', async () => {
    const { h, pve } = await health({ PVE_HOST: 'http://127.0.0.1:1', PVE_TOKEN: 'doctor-test' });
    assert.equal(pve.not_configured, undefined);
    assert.equal(h.status, 'degraded');
  });

  it('catalog: reasons keep one prefix, at the start; status() failures and details.configured are read', async () => {
    assert.equal(tidyReason('[vmhub] [provider-proxmox] [vmhub] [provider-proxmox] node "a" is offline'), '[vmhub] [provider-proxmox] node "a" is offline');
    assert.equal(tidyReason('template pve is unavailable: [vmhub] [provider-proxmox] no token'), 'template pve is unavailable: no token');
    assert.equal(tidyReason('[vmhub] x: [vmhub] [store] y'), '[vmhub] x: y');
    assert.equal(tidyReason('plain reason [not a prefix]'), 'plain reason [not a prefix]');
    const stub = (status: Provider['status']) => ({ status }) as Provider;
    assert.deepEqual(await providerHealth(stub(async () => ({ ok: false, reason: 'off', details: { configured: false } }))), { ok: false, reason: 'off', details: { configured: false }, not_configured: true });
    assert.deepEqual(await providerHealth(stub(async () => { throw new Error('[vmhub] [provider-x] [vmhub] [provider-x] boom'); })), { ok: false, reason: '[vmhub] [provider-x] boom' });
    assert.equal(notConfigured({ ok: false, reason: '[vmhub] [provider-proxmox] node "pve2" has no API address: set VMHUB_NODE_PVE2_BASE_URL' }), false, 'a node listed without an address is a mistake, not an absence');
  });
});
