/**
 * Readiness in stages, each reported as it goes: `container` (running), then the golden's own
 * probes from its image label `vmhub.ready` (manifest "ready"), each run until it exits 0 — for
 * debian-x11 (and images without the label) `display` (xdpyinfo answers on the X display) →
 * `desktop` (wmctrl -m finds the window manager).
 * When the machine's /tmp/.X11-unix is shared on this host (`x11Dir`), those two probes are
 * answered here over the X socket (docker-x11-ready.ts) with no `docker exec`: checked again when
 * the socket directory or the root window's properties change, and at least every 10 ms; a server
 * that refuses this client sends the probe back into the guest.
 * Bounded by the template's ready_timeout_seconds (default 60); BOOT_TIMEOUT says which stage
 * stalled and what it last saw.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type MachineRef, type ReadyRequest } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { inspectContainer } from './docker-create.ts';
import { rawExec } from './docker-exec.ts';
import { X11_READY, type ReadyProbe } from './golden-manifest.ts';
import { dockerTemplateOptions } from './options.ts';
import { displayNumber, hostProbeFor } from './docker-x11-ready.ts';

const SOURCE = 'provider-docker';

export async function waitReady(docker: DockerClient, machine: MachineRef, request: ReadyRequest, desktopUser: string, x11Dir?: string): Promise<void> {
  const timeoutS = request.template.ready_timeout_seconds ?? 60;
  const deadline = Date.now() + timeoutS * 1000;
  const { display } = dockerTemplateOptions(request.template);
  let stage = 'container';
  let detail = 'not checked yet';

  const sleepFor = (ms: number): Promise<unknown> => sleep(ms, undefined, { signal: request.signal });
  /**
   * Run `probe` until it answers true. `everyMs`: its pace for the first 2 s (a container's desktop
   * is up in ~200 ms: a doubling wait overshot it by up to its last step), then backing off to
   * 500 ms for slow boots; `wait`: how to spend a pause (a host probe wakes early on its event);
   * `doneDetail`: what the finished stage says.
   */
  const until = async (name: string, probe: () => Promise<string | true>, o: { everyMs?: number; wait?: (ms: number) => Promise<unknown>; doneDetail?: () => string | undefined } = {}): Promise<void> => {
    stage = name;
    request.stage(name, 'running');
    const first = o.everyMs ?? 50;
    const wait = o.wait ?? sleepFor;
    const began = Date.now();
    for (let delay = first; ; delay = Date.now() - began < 2000 ? first : Math.min(delay * 2, 500)) {
      if (request.signal.aborted) throw new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] readiness of ${machine.identity} aborted at stage ${name}`, { source: SOURCE });
      const r = await probe();
      if (r === true) {
        const detail = o.doneDetail?.();
        if (detail) request.stage(name, 'done', detail);
        else request.stage(name, 'done');
        return;
      }
      detail = r;
      if (Date.now() + delay > deadline) {
        request.stage(name, 'failed', detail);
        throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] ${machine.identity} not ready after ${timeoutS} s: stage ${stage} stuck: ${detail}`, { source: SOURCE, details: { stage, detail } });
      }
      await wait(delay).catch(() => {});
    }
  };

  const user = dockerTemplateOptions(request.template).user ?? desktopUser;
  const probeExec = (argv: string[], as = user) => async (): Promise<string | true> => {
    const r = await rawExec(docker, machine.external_id, { argv, user: as, env: { DISPLAY: display }, timeoutMs: 5000, maxOutputBytes: 4096 });
    if (r.exit_code === 0) return true;
    return `${argv.join(' ')} exited ${r.exit_code ?? 'by timeout'}: ${(r.stderr.toString('utf8') || r.stdout.toString('utf8')).trim().slice(0, 300)}`;
  };

  let probes: ReadyProbe[] = X11_READY;
  await until('container', async () => {
    const c = await inspectContainer(docker, machine.external_id, request.signal);
    probes = readyProbes(c?.Config?.Labels?.['vmhub.ready']);
    if (!c) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] container ${machine.identity} disappeared while starting`, { source: SOURCE });
    if (c.State.Running) return true;
    if (c.State.Status === 'exited' || c.State.Status === 'dead') {
      request.stage('container', 'failed', `exited with ${c.State.ExitCode}`);
      throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] container ${machine.identity} exited with code ${c.State.ExitCode}${c.State.Error ? `: ${c.State.Error}` : ''}: see docker logs ${machine.identity}`, { source: SOURCE });
    }
    return `state ${c.State.Status}`;
  });
  const num = displayNumber(display);
  for (const p of probes) {
    const argv = p.argv.map((a) => (a === '$DISPLAY' ? display : a));
    const socket = x11Dir !== undefined && num !== undefined ? join(x11Dir, `X${num}`) : undefined;
    const host = socket ? hostProbeFor(argv, socket) : undefined;
    if (!host) {
      await until(p.stage, probeExec(argv, p.user));
      continue;
    }
    let inGuest: (() => Promise<string | true>) | undefined;
    try {
      await until(p.stage, async () => {
        if (inGuest) return inGuest();
        const r = await host.check();
        if (typeof r === 'object') {
          inGuest = probeExec(argv, p.user); // the server wants a cookie this host does not have
          return `${r.unusable}; asking in the guest`;
        }
        return r === true ? true : `${argv.join(' ')}, asked on the host over ${socket}: ${r}`;
      }, {
        everyMs: 10,
        // Between host checks, wake as soon as the socket appears or the root's properties change.
        wait: (ms) => (inGuest ? sleepFor(ms) : host.changed(ms)),
        doneDetail: () => (inGuest ? undefined : `${argv.join(' ')} answered on the host over the shared X socket`),
      });
    } finally {
      host.close();
    }
  }
}

function readyProbes(label: string | undefined): ReadyProbe[] {
  if (!label) return X11_READY;
  try {
    const parsed = JSON.parse(Buffer.from(label, 'base64').toString('utf8')) as ReadyProbe[];
    if (Array.isArray(parsed) && parsed.every((p) => typeof p.stage === 'string' && Array.isArray(p.argv))) return parsed;
  } catch { /* fall through */ }
  throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] the image's vmhub.ready label is not a JSON list of probes: rebuild the golden`, { source: SOURCE });
}
