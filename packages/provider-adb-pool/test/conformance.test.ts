/**
 * adb-pool: the published conformance kit's provider suite, on a pool of one REAL adbd device
 * (test/devices.ts) — create, idempotence, ready, list, channel exec/files/abort, state and the
 * destroy identity checks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runProviderConformance } from '@vmhub/conformance';
import adbPool, { androidDeviceTemplate } from '../src/index.ts';
import { devicesMissing, startLab } from './devices.ts';

const skip = devicesMissing();
if (skip) {
  describe('adb-pool: provider conformance', () => { it('needs adbd, Xvfb and root', { skip }, () => undefined); });
} else {
  const lab = await startLab(1);
  const stateDir = mkdtempSync(join(tmpdir(), 'vmhub-test-adbpool-state-'));
  after(async () => {
    await lab.close();
    rmSync(stateDir, { recursive: true, force: true });
  });
  runProviderConformance({
    plugin: adbPool,
    options: { devices: lab.devices.map((d) => ({ name: d.name, address: d.address })), state_dir: stateDir, adb: { host: '127.0.0.1', port: lab.adbPort, bin: 'adb' } },
    template: { ...androidDeviceTemplate, ready_timeout_seconds: 30 },
    timeoutMs: 60_000,
  });
}
