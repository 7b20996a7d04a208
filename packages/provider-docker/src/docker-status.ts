/**
 * Status and availability: never throw; say what is wrong and how to fix it.
 */
import type { ProviderStatus, TemplateConfig } from '@vmhub/core';
import { VmhubError } from '@vmhub/core';
import type { DockerClient, RawResponse } from './docker-client.ts';
import { missingImageReason } from './docker-create.ts';

interface Version {
  Version: string;
  ApiVersion: string;
  MinAPIVersion?: string;
  Os?: string;
  Arch?: string;
}

function apiAtLeast(have: string, want: string): boolean {
  const [a1, a2] = have.split('.').map(Number) as [number, number];
  const [b1, b2] = want.split('.').map(Number) as [number, number];
  return a1 > b1 || (a1 === b1 && a2 >= b2);
}

export async function dockerStatus(docker: DockerClient): Promise<ProviderStatus> {
  try {
    const ping = await docker.raw('GET', '/_ping', { timeoutMs: 5000, unversioned: true });
    if (ping.status !== 200) return { ok: false, reason: `Docker daemon at ${docker.where} answered /_ping with ${ping.status}` };
    const v = await docker.json<Version>('GET', '/version', { timeoutMs: 5000, unversioned: true });
    if (!apiAtLeast(v.ApiVersion, docker.apiVersion)) {
      return { ok: false, reason: `Docker daemon at ${docker.where} speaks API ${v.ApiVersion}, older than ${docker.apiVersion}: upgrade the engine (docker.io >= 20.10)`, details: { version: v.Version, api_version: v.ApiVersion } };
    }
    return { ok: true, details: { host: docker.where, version: v.Version, api_version: v.ApiVersion, pinned_api_version: docker.apiVersion } };
  } catch (err) {
    if (VmhubError.is(err) && err.code === 'NODE_UNAVAILABLE') return { ok: false, reason: docker.unreachableReason(err.cause) };
    return { ok: false, reason: `Docker daemon at ${docker.where}: ${(err as Error).message}` };
  }
}

/**
 * One round trip when all is well: the image answering proves the daemon is reachable and speaks
 * the pinned API version (an older daemon refuses it with 400). Only a failure asks dockerStatus
 * why: its /version costs 5–10 ms on dockerd, and every lease create asks this first. `onImage`
 * gets the image's inspect body (create reads the sshd label from it: docker-ssh.ts ImageSshPorts).
 */
export async function dockerAvailability(docker: DockerClient, template: TemplateConfig, onImage?: (body: Buffer) => void): Promise<{ availability: 'available' | 'unavailable'; reason?: string }> {
  const path = `/images/${template.golden}/json`;
  let res: RawResponse | undefined;
  let failure: Error | undefined;
  try {
    res = await docker.raw('GET', path, { timeoutMs: 5000 });
    if (res.status === 200) {
      onImage?.(res.body);
      return { availability: 'available' };
    }
  } catch (err) {
    failure = err as Error;
  }
  const status = await dockerStatus(docker);
  if (!status.ok) return { availability: 'unavailable', reason: status.reason };
  if (!res) return { availability: 'unavailable', reason: failure!.message };
  if (res.status === 404) return { availability: 'unavailable', reason: missingImageReason(template.golden) };
  return { availability: 'unavailable', reason: docker.httpError('GET', path, res.status, res.body).message };
}
