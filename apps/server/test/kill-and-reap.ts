/**
 * A lease's holder ended with no server: the server process `s` SIGKILLed (waited until it is
 * gone), the lease's expiry moved into the past in the store, and one pass of the BUILT reaper run
 * on the box's config (`reaper --once`; its exit 1, "some work failed", is the test's to judge).
 * The lease's status afterwards is returned, with the store left open for the caller's checks.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Store } from '@vmhub/store';
import { until, type Sandbox, type Session } from './harness.ts';

const run = promisify(execFile);
const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));

export async function killExpireReap(s: Session, box: Sandbox, lease: string, env: Record<string, string> = {}): Promise<{ store: Store; status: string | undefined }> {
  const pid = s.pid!;
  process.kill(pid, 'SIGKILL');
  await until(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, 'the server to die', 10_000);
  await s.close().catch(() => undefined);
  const store = new Store({ path: box.db });
  await store.updateLease(lease, { expires_at: Date.now() - 1000 }, ['ready']);
  await run(process.execPath, [REAPER, '--once'], { env: { ...process.env, ...env, HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error' } }).catch((e: { code?: number }) => { if (e.code !== 1) throw e; });
  return { store, status: (await store.getLease(lease))?.status };
}
