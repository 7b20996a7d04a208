/**
 * The published conformance kit on the built provider (dist), against the simulator in PVE 9.1
 * and 8.4 modes. The guests' SSH address points at a real sshd on loopback that trusts each
 * lease's key as soon as the simulated guest has booted with it (cloud-init `sshkeys`).
 */
import { after } from 'node:test';
import { runProviderConformance } from '@vmhub/conformance';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { startSshd } from '@vmhub/test-kit';
import proxmoxProvider from '../dist/index.js';
import { startSim, template } from './helpers/setup.ts';

const sshd = await startSshd();
const sims: PveSimulator[] = [await startSim({ mode: '9' }), await startSim({ mode: '8' })];
const authorized = new Set<string>();
const sync = setInterval(() => {
  for (const sim of sims) {
    for (const vm of sim.state.vms()) {
      const keys = vm.cloudInitAtStart?.sshkeys;
      if (keys && !authorized.has(String(keys))) {
        authorized.add(String(keys));
        sshd.authorize(decodeURIComponent(String(keys)));
      }
    }
  }
}, 50);

after(async () => {
  clearInterval(sync);
  for (const sim of sims) await sim.close();
  await sshd.stop();
});

for (const sim of sims) {
  runProviderConformance({
    plugin: proxmoxProvider,
    options: {
      base_url: sim.hostPort, token_id: sim.token.tokenId, token: sim.token.secret, fingerprint: sim.certificate?.fingerprint256,
      task_poll_ms: 40, ready_poll_ms: 100, retry_base_ms: 20, request_timeout_ms: 5000,
    },
    template: template({ id: `debian-pve${sim.mode}` }, { address_override: `${sshd.host}:${sshd.port}`, ciuser: sshd.user }),
    timeoutMs: 60_000,
  });
}
