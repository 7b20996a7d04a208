/**
 * state(): is the lease's container still there and running? Re-read by id (or name) and
 * trusted only when it carries the identity (label AND name), like destroy: a container with
 * another identity is 'gone' for this lease. Running → 'running'; created, paused, restarting,
 * exited → 'stopped'; no such container, or one being removed / dead → 'gone'. A missing
 * container never throws; an unreachable daemon throws NODE_UNAVAILABLE (the client's mapping).
 */
import type { MachineRef, MachineState } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { inspectContainer } from './docker-create.ts';
import { carriesIdentity } from './docker-identity.ts';

interface InspectState {
  Running: boolean;
  Paused?: boolean;
  Restarting?: boolean;
  Status: string;
}

/** What an inspected container's State means for a lease. */
export function containerState(c: { State: InspectState }): MachineState {
  const s = c.State;
  if (s.Status === 'removing' || s.Status === 'dead') return 'gone';
  if (s.Running && !s.Paused && !s.Restarting) return 'running';
  return 'stopped';
}

export async function machineState(docker: DockerClient, machine: MachineRef): Promise<MachineState> {
  const c = await inspectContainer(docker, machine.external_id || machine.identity);
  if (!c || !carriesIdentity(c, machine.identity)) return 'gone';
  return containerState(c);
}
