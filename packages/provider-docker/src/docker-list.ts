/**
 * Machines this instance owns: containers whose identity label starts with the instance's prefix
 * and whose name equals that label. Look-alikes (a name without the label, a label on a
 * differently named container) are not ours and are never returned.
 */
import type { OwnedMachine } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { carriesIdentity, labelsOf, LABEL_CREATED, LABEL_IDENTITY, namesOf, type ContainerSummary } from './docker-identity.ts';

export async function listOwned(docker: DockerClient, identityPrefix: string): Promise<OwnedMachine[]> {
  const filters = JSON.stringify({ label: [LABEL_IDENTITY] });
  const all = await docker.json<ContainerSummary[]>('GET', '/containers/json', { query: { all: true, filters } });
  const out: OwnedMachine[] = [];
  for (const c of all) {
    const identity = labelsOf(c)[LABEL_IDENTITY] ?? '';
    if (!identity.startsWith(identityPrefix) || !carriesIdentity(c, identity)) continue;
    const created = Number(labelsOf(c)[LABEL_CREATED]);
    out.push({
      identity,
      external_id: c.Id,
      created_at: Number.isFinite(created) && created > 0 ? created : Number(c.Created) * 1000,
      details: { name: namesOf(c)[0], state: c.State },
    });
  }
  return out;
}
