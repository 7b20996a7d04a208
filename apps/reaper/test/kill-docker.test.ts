/**
 * The kill test on the real Docker provider (issue 4). 30 lease lifecycles driven through the
 * BUILT vmhub-server with the MCP SDK client; servers are SIGKILLed at random points
 * (provisioning, ready, mid-release), a reaper runs in loop mode meanwhile and is itself
 * SIGKILLed and restarted at random points. Then, with every server dead and every dead
 * process's claim lapsed, one more reaper pass, and:
 *   - no container carrying this instance's identity remains without a live lease;
 *   - no lease is in a live state past its expiry;
 *   - decoy containers (a lease's uuid in the name but no identity, another instance's identity,
 *     an unrelated container, a look-alike label on another name) are all still there.
 * Needs: a running Docker engine, the debian-x11 golden built (`vmhub-server golden build
 * debian-x11`), apps/server and apps/reaper built. Fails loudly when any is missing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Store } from '@vmhub/store';
import { BIN, exited, spawnReaper, summaryOf, type World } from './helpers.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));
const docker = async (...args: string[]) => (await run('docker', args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();

const here = dirname(fileURLToPath(import.meta.url));
const SERVER_BIN = join(here, '..', '..', 'server', 'dist', 'bin.js');
const LIFECYCLES = Number(process.env.VMHUB_KILL_LIFECYCLES ?? 30);
const PARALLEL = 3;
const LIVE = ['provisioning', 'starting', 'ready', 'releasing'];

// The MCP SDK is the server's dependency, not the reaper's: resolve it from the server package.
const serverRequire = createRequire(join(here, '..', '..', 'server', 'package.json'));
const sdk = async (path: string) => import(pathToFileURL(serverRequire.resolve(`@modelcontextprotocol/sdk/${path}`)).href);

const dir = mkdtempSync(join(tmpdir(), 'vmhub-reaper-kill-'));
const instance = `k${randomBytes(4).toString('hex')}`;
const prefix = `vmhub-${instance}-`;
const db = join(dir, 'vmhub.db');
const configFile = join(dir, 'config.json');
const decoys: string[] = [];
const log: string[] = [];
const note = (line: string) => { log.push(`${new Date().toISOString().slice(11, 23)} ${line}`); };

interface Server { call(tool: string, args: Record<string, unknown>): Promise<any>; kill(): void; close(): Promise<void>; pid: number | null }

async function startServer(name: string): Promise<Server> {
  const { Client } = await sdk('client/index.js');
  const { StdioClientTransport } = await sdk('client/stdio.js');
  const transport = new StdioClientTransport({
    command: process.execPath, args: [SERVER_BIN], stderr: 'ignore',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, VMHUB_CONFIG: configFile, VMHUB_LOG_LEVEL: 'warn' },
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return {
    pid: transport.pid,
    call: (tool, args) => client.callTool({ name: tool, arguments: args }, undefined, { timeout: 90_000 }),
    kill: () => { if (transport.pid) { try { process.kill(transport.pid, 'SIGKILL'); } catch { /* already dead */ } } },
    close: () => client.close().catch(() => undefined),
  };
}

async function waitReady(s: Server, leaseId: string, seconds = 90): Promise<string> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const r = await s.call('vm_lease_status', { lease_id: leaseId, wait_seconds: 5 });
    if (r.isError) throw new Error(`vm_lease_status: ${JSON.stringify(r.structuredContent)}`);
    const status = r.structuredContent.status;
    if (!['provisioning', 'starting'].includes(status)) return status;
    if (Date.now() > until) throw new Error(`lease ${leaseId} still ${status} after ${seconds} s`);
  }
}

const SCENARIOS = ['kill-provisioning', 'kill-ready', 'kill-releasing', 'release', 'expire'] as const;

async function lifecycle(i: number): Promise<void> {
  const scenario = SCENARIOS[i % SCENARIOS.length];
  const s = await startServer(`kill-${i}`);
  let lease = '';
  try {
    const ttl = scenario === 'expire' || scenario === 'kill-ready' ? 60 : rand(600, 3600);
    const r = await s.call('vm_lease_create', { template: 'debian-x11', request_id: `kill-${instance}-${i}`, ttl_seconds: ttl });
    if (r.isError) throw new Error(`vm_lease_create: ${JSON.stringify(r.structuredContent)}`);
    lease = r.structuredContent.lease_id;
    note(`#${i} ${scenario} lease ${lease} ttl ${ttl}`);
    if (scenario === 'kill-provisioning') {
      await sleep(rand(0, 4000));
      s.kill();
      return;
    }
    const status = await waitReady(s, lease);
    note(`#${i} ${lease} ${status}`);
    if (scenario === 'kill-ready') { await sleep(rand(0, 1000)); s.kill(); return; }
    if (scenario === 'kill-releasing') {
      const pending = s.call('vm_lease_release', { lease_id: lease }).catch(() => undefined);
      await sleep(rand(0, 1500));
      s.kill();
      await pending;
      return;
    }
    if (scenario === 'release') {
      const rel = await s.call('vm_lease_release', { lease_id: lease });
      note(`#${i} ${lease} released: ${rel.structuredContent?.status}`);
    }
    // 'expire': the agent walks away; the server exits cleanly, the lease runs out its TTL.
    await s.close();
  } catch (err) {
    note(`#${i} ${scenario} ${lease}: ${(err as Error).message}`);
    s.kill();
    throw err;
  } finally {
    s.kill();
  }
}

async function makeDecoys(image: string, realLease: string): Promise<void> {
  const other = `vmhub-o${randomBytes(4).toString('hex')}-${randomUUID()}`;
  const lookalike = `${prefix}${randomUUID()}`;
  const specs: string[][] = [
    ['--name', `x-${realLease}-${instance}`],                                                   // a real lease's uuid in the name, no identity label
    ['--name', other, '--label', `vmhub.identity=${other}`],                                     // another instance's identity
    ['--name', `unrelated-${instance}`],                                                         // unrelated
    ['--name', `lookalike-${instance}`, '--label', `vmhub.identity=${lookalike}`],               // our prefix in the label, name does not carry it
  ];
  for (const spec of specs) {
    const name = spec[1];
    await docker('create', '--network', 'none', ...spec, image, 'sleep', '600');
    decoys.push(name);
  }
}

async function ourContainers(): Promise<{ name: string; identity: string }[]> {
  const out = await docker('ps', '-a', '--filter', `label=vmhub.identity`, '--format', '{{.Names}}\t{{.Label "vmhub.identity"}}');
  return out.split('\n').filter(Boolean).map((l) => { const [name, identity] = l.split('\t'); return { name, identity }; })
    .filter((c) => c.identity.startsWith(prefix) && c.name === c.identity);
}

describe('reaper: kill test on the real Docker provider', { timeout: 20 * 60_000 }, () => {
  let image = '';

  before(async () => {
    assert.ok(existsSync(SERVER_BIN), `[vmhub] [reaper] kill test needs the built server: cd apps/server && npx tsc -p tsconfig.build.json (${SERVER_BIN} missing)`);
    assert.ok(existsSync(BIN), `[vmhub] [reaper] kill test needs the built reaper (${BIN} missing)`);
    await docker('version', '--format', '{{.Server.Version}}').catch((err) => { throw new Error(`[vmhub] [reaper] kill test needs a running Docker engine (bash scripts/start-docker.sh): ${err.message}`); });
    writeFileSync(configFile, JSON.stringify({
      instance, db,
      leases: { max_per_owner: 100, max_total: 100, provision_timeout_seconds: 45 },
      reaper: { interval_seconds: 2, orphan_grace_seconds: 0, stuck_grace_seconds: 0 },
    }, null, 2));
    const s = await startServer('kill-probe');
    try {
      const t = await s.call('vm_list_templates', {});
      const x11 = t.structuredContent.templates.find((x: any) => x.id === 'debian-x11');
      assert.ok(x11, `[vmhub] [reaper] the server offers no debian-x11 template: ${JSON.stringify(t.structuredContent)}`);
      assert.equal(x11.availability, 'available', `[vmhub] [reaper] debian-x11 is ${x11.availability} (${x11.reason}): build it with vmhub-server golden build debian-x11`);
    } finally {
      await s.close();
      s.kill();
    }
    image = (await docker('images', 'vmhub/debian-x11', '--format', '{{.Repository}}:{{.Tag}}')).split('\n')[0];
  });

  after(async () => {
    const names = (await docker('ps', '-aq', '--filter', `name=${instance}`).catch(() => '')).split('\n').filter(Boolean);
    const decoyIds = decoys.length ? (await docker('ps', '-aq', ...decoys.flatMap((d) => ['--filter', `name=${d}`])).catch(() => '')).split('\n').filter(Boolean) : [];
    const all = [...new Set([...names, ...decoyIds])];
    if (all.length) await docker('rm', '-f', ...all).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it(`after ${LIFECYCLES} lifecycles with servers and the reaper SIGKILLed at random, one more pass leaves no container without a live lease and no live lease past expiry`, async () => {
    const world = { env: { PATH: process.env.PATH, HOME: dir, VMHUB_CONFIG: configFile } } as unknown as World;
    let reaper = spawnReaper(world, ['--interval', '2', '--claim-seconds', '5', '--json']);
    let reaperKills = 0;
    let stop = false;
    const reaperChaos = (async () => {
      while (!stop) {
        await sleep(rand(4000, 15000));
        if (stop) break;
        reaper.kill('SIGKILL');
        await exited(reaper, 10_000).catch(() => undefined);
        reaperKills++;
        note(`reaper SIGKILLed (${reaperKills})`);
        await sleep(rand(0, 3000));
        reaper = spawnReaper(world, ['--interval', '2', '--claim-seconds', '5', '--json']);
      }
    })();

    let next = 0;
    const failures: string[] = [];
    await Promise.all(Array.from({ length: PARALLEL }, async () => {
      while (next < LIFECYCLES) {
        const i = next++;
        if (i === 1) {
          const store = new Store({ path: db });
          const first = (await store.listLeases({ limit: 1 }))[0];
          await store.close();
          if (first) await makeDecoys(image, first.id);
        }
        await lifecycle(i).catch((err) => failures.push(`#${i}: ${(err as Error).message}`));
      }
    }));
    stop = true;
    await reaperChaos;
    // The reaper dies too, at a random point of whatever it was doing.
    await sleep(rand(0, 2000));
    reaper.kill('SIGKILL');
    await exited(reaper, 10_000);

    const store = new Store({ path: db });
    try {
      const leases = await store.listLeases();
      assert.ok(leases.length >= LIFECYCLES - failures.length, `one lease per lifecycle (failures: ${failures.join('; ')})`);
      // Claims of the killed processes must lapse before anyone may take their work over:
      // servers claim for 120 s, the reaper for 5 s. Wait for the last one (bounded).
      const lapse = Math.max(Date.now(), ...leases.map((l) => l.claim_expires_at ?? 0));
      note(`waiting ${lapse - Date.now()} ms for the dead processes' claims to lapse`);
      assert.ok(lapse - Date.now() <= 125_000, 'claims are bounded');
      await sleep(lapse - Date.now() + 500);

      const passStart = Date.now();
      const final = await run(process.execPath, [BIN, '--once'], { env: { PATH: process.env.PATH, HOME: dir, VMHUB_CONFIG: configFile }, timeout: 180_000 }).catch((err) => err);
      note(`final pass: ${String(final.stdout).trim()}`);
      assert.equal(final.code ?? 0, 0, `the final pass is clean:\n${final.stdout}\n${final.stderr}`);
      const summary = summaryOf(final.stdout);

      const after = new Map((await store.listLeases()).map((l) => [l.identity, l]));
      const containers = await ourContainers();
      for (const c of containers) {
        const lease = after.get(c.identity);
        assert.ok(lease && LIVE.includes(lease.status), `container ${c.name} remains but its lease is ${lease ? lease.status : 'unknown to the store'}\n${log.join('\n')}`);
      }
      for (const l of after.values()) {
        if (!LIVE.includes(l.status)) continue;
        assert.ok(l.expires_at > passStart && l.max_expires_at > passStart, `lease ${l.id} is ${l.status} past its expiry (${new Date(l.expires_at).toISOString()})\n${log.join('\n')}`);
      }
      // Every lease that ended has no container; machines recorded destroyed.
      for (const l of after.values()) {
        if (LIVE.includes(l.status)) continue;
        assert.ok(!containers.some((c) => c.identity === l.identity), `lease ${l.id} (${l.status}) still has a container`);
      }
      // …nor its SSH key (debian-x11 runs sshd): whoever destroyed the machine, server or reaper, dropped it.
      const keyDir = join(dir, 'provider-docker', 'keys');
      const keys = existsSync(keyDir) ? readdirSync(keyDir) : [];
      for (const l of after.values()) {
        if (!LIVE.includes(l.status)) assert.ok(!keys.includes(`${l.identity}.json`), `lease ${l.id} (${l.status}) still has its SSH key file`);
      }
      for (const d of decoys) {
        assert.ok((await docker('ps', '-a', '--filter', `name=^/${d}$`, '--format', '{{.Names}}')).includes(d), `decoy ${d} was destroyed`);
      }
      const statuses: Record<string, number> = {};
      for (const l of after.values()) statuses[l.status] = (statuses[l.status] ?? 0) + 1;
      const reaperEvents = (await store.listEvents({ actorPrefix: 'reaper:', limit: 1_000_000_000 })).length;
      console.log(`kill test: ${LIFECYCLES} lifecycles, ${reaperKills} reaper kills, lifecycle errors ${failures.length} ${JSON.stringify(failures)}, final statuses ${JSON.stringify(statuses)}, containers left (all with live leases) ${containers.length}, reaper events ${reaperEvents}, final pass ${JSON.stringify(summary)}`);
      assert.ok(reaperKills >= 1, 'the reaper was killed at least once');
      assert.ok(failures.length <= LIFECYCLES / 5, `most lifecycles ran (failures: ${failures.join('; ')})`);
    } finally {
      await store.close();
    }
  });
});
