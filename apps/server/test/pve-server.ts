/**
 * The built server on the PVE API simulator, the way the vmhub seed documents the setup
 * (PVE_HOST, PVE_TOKEN_ID, PVE_TOKEN, PVE_FINGERPRINT), with a real sshd on loopback that trusts
 * the per-lease key cloud-init got, and one template `pve-debian` on it. `extra` goes into the
 * config file (e.g. `pools`), `templateOptions` into the template's provider_options.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startPveSimulator, type PveSimulator } from '@vmhub/pve-simulator';
import { startSshd, type TestSshd } from '@vmhub/test-kit';
import { connect, type Session } from './harness.ts';

export interface PveServer {
  sim: PveSimulator;
  sshd: TestSshd;
  s: Session;
  stop(): Promise<void>;
}

export async function startPveServer(dir: string, instance: string, extra: Record<string, unknown> = {}, templateOptions: Record<string, unknown> = {}): Promise<PveServer> {
  const sshd = await startSshd();
  const sim = await startPveSimulator({
    timing: { cloneMs: 80, fullCloneMs: 150, startMs: 60, stopMs: 40, shutdownMs: 40, destroyMs: 60, configMs: 20, templateMs: 20 },
    guest: { agentDelayMs: 200, onBoot: (boot) => { if (boot.cloudInit.sshkeys) sshd.authorize(String(boot.cloudInit.sshkeys)); } },
  });
  const db = join(dir, 'vmhub.db');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({
    instance, db,
    providers: { proxmox: { task_poll_ms: 50, ready_poll_ms: 100, state_dir: join(dir, 'pve-state') } },
    templates: [{ id: 'pve-debian', provider: 'proxmox', adapter: 'x11', os: 'linux', golden: 'debian-golden', ready_timeout_seconds: 60, provider_options: { address_override: `${sshd.host}:${sshd.port}`, ciuser: sshd.user, ...templateOptions } }],
    ...extra,
  }));
  const s = await connect({ dir, instance, db, fakeDir: '', configFile: config, cleanup: () => {} }, {
    PVE_HOST: sim.hostPort, PVE_TOKEN_ID: sim.token.tokenId, PVE_TOKEN: sim.token.secret, PVE_FINGERPRINT: sim.certificate!.fingerprint256,
  });
  return {
    sim, sshd, s,
    async stop() {
      await s.close();
      await sim.close();
      await sshd.stop();
    },
  };
}
