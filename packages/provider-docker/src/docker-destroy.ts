/**
 * Destroy by identity: re-read the container, require the identity label AND name to match,
 * then force-remove it with its volumes and confirm the engine no longer knows it. `removed`
 * hears the image the container ran (a deleted snapshot's image goes with its last container).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type DestroyOutcome, type MachineRef, type ProviderContext } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { inspectContainer } from './docker-create.ts';
import { carriesIdentity, labelsOf, LABEL_IDENTITY, namesOf } from './docker-identity.ts';

const SOURCE = 'provider-docker';

export async function destroyContainer(docker: DockerClient, machine: MachineRef, log: ProviderContext['log'], removed?: (image: string | undefined) => Promise<void>): Promise<DestroyOutcome> {
  const handle = machine.external_id || machine.identity;
  const c = await inspectContainer(docker, handle);
  if (!c) return 'already_gone';
  if (!carriesIdentity(c, machine.identity)) {
    log('warn', `[vmhub] [${SOURCE}] refusing to destroy container ${c.Id.slice(0, 12)}: it carries ${LABEL_IDENTITY}=${JSON.stringify(labelsOf(c)[LABEL_IDENTITY] ?? null)} and name ${JSON.stringify(namesOf(c)[0] ?? null)}, expected ${machine.identity}`, { container: c.Id, identity: machine.identity });
    return 'identity_mismatch';
  }
  const res = await docker.raw('DELETE', `/containers/${c.Id}`, { query: { force: true, v: true } });
  if (res.status >= 400 && res.status !== 404 && res.status !== 409) throw docker.httpError('DELETE', `/containers/${c.Id}`, res.status, res.body);
  // 409 = removal already in progress: wait for it like for our own.
  for (let i = 0; i < 100; i++) {
    if (!(await inspectContainer(docker, c.Id))) {
      await removed?.(c.Image);
      return 'destroyed';
    }
    await sleep(100);
  }
  throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] container ${c.Id.slice(0, 12)} (${machine.identity}) still exists 10 s after removal`, { source: SOURCE });
}
