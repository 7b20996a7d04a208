/**
 * restart(): the lease's container restarted in place — same container, same filesystem (its
 * writable layer), same identity, labels, environment and mounts (the framebuffer and X socket
 * directories stay where the host reads them). Graceful: the engine's restart (`POST
 * /containers/{id}/restart?t=GRACE_S`): SIGTERM to its init (tini -g hands it to the session's
 * process group: the session stops Xvfb, openbox and sshd), SIGKILL after GRACE_S, then started
 * again. Hard: SIGKILL, then start. Either way every process of the container is gone and its
 * entrypoint runs again: the desktop session starts anew (ready() waits for it as at create).
 * The container is re-read by identity first, like destroy: one that carries another identity,
 * or none, is MACHINE_LOST.
 */
import { VmhubError, type MachineRef, type RestartRequest } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { leaseContainer } from './docker-create.ts';

const SOURCE = 'provider-docker';
/** Seconds the engine waits after SIGTERM before it kills the container (graceful restart). */
export const GRACE_S = 10;

export function dockerRestartSupport(): { graceful: boolean } {
  return { graceful: true };
}

export async function restartContainer(docker: DockerClient, machine: MachineRef, request: RestartRequest): Promise<void> {
  const { hard, signal, stage } = request;
  const c = await leaseContainer(docker, machine, signal);
  const began = Date.now();
  const post = async (path: string, query: Record<string, string | number> = {}, ok = [204, 304]) => {
    const res = await docker.raw('POST', `/containers/${c.Id}${path}`, { query, signal, timeoutMs: (GRACE_S + 30) * 1000 });
    if (!ok.includes(res.status)) throw new VmhubError('PROVISION_FAILED', docker.httpError('POST', `/containers/${machine.identity}${path}`, res.status, res.body).message.split(c.Id).join(machine.identity), { source: SOURCE });
  };
  if (hard) {
    // 409: not running (stopped behind our back): start it all the same.
    if (c.State.Running) await post('/kill', { signal: 'SIGKILL' }, [204, 409]);
    await post('/start');
    stage('reboot', 'done', `container killed (SIGKILL) and started again in ${Date.now() - began} ms`);
    return;
  }
  await post('/restart', { t: GRACE_S });
  stage('reboot', 'done', `container restarted (SIGTERM, SIGKILL after ${GRACE_S} s) in ${Date.now() - began} ms`);
}
