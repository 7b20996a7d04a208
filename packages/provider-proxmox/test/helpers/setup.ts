/**
 * Shared test wiring: a simulator with fast task timings, the provider pointed at it (TLS pinned
 * to the simulator's certificate), a template, and a stage recorder.
 */
import { randomUUID } from 'node:crypto';
import { machineIdentity, type Provider, type ProviderContext, type TemplateConfig } from '@vmhub/core';
import { startPveSimulator, type PveSimulator, type PveSimulatorOptions } from '@vmhub/pve-simulator';
import proxmoxProvider, { type ProxmoxOptions } from '../../src/index.ts';

export const FAST_TIMING = { cloneMs: 60, fullCloneMs: 120, startMs: 40, stopMs: 30, shutdownMs: 40, destroyMs: 40, configMs: 20, templateMs: 20 };

export async function startSim(options: PveSimulatorOptions = {}): Promise<PveSimulator> {
  return startPveSimulator({ timing: FAST_TIMING, guest: { agentDelayMs: 150 }, ...options });
}

export const logs: { level: string; msg: string; data?: Record<string, unknown> }[] = [];

export function context(instance: string): ProviderContext {
  return { identityPrefix: `vmhub-${instance}-`, log: (level, msg, data) => { logs.push({ level, msg, data }); } };
}

export function providerFor(sim: PveSimulator, instance: string, extra: Partial<ProxmoxOptions> = {}): Provider {
  return proxmoxProvider.create({
    base_url: sim.hostPort, token_id: sim.token.tokenId, token: sim.token.secret,
    fingerprint: sim.certificate?.fingerprint256, task_poll_ms: 40, ready_poll_ms: 100, retry_base_ms: 20, request_timeout_ms: 5000,
    ...extra,
  }, context(instance));
}

export function template(extra: Partial<TemplateConfig> = {}, providerOptions: Record<string, unknown> = {}): TemplateConfig {
  return { id: 'debian', provider: 'proxmox', adapter: 'fake', os: 'linux', golden: 'debian-golden', ready_timeout_seconds: 30, ...extra, provider_options: providerOptions };
}

export function lease(instance: string): { lease_id: string; identity: string } {
  const lease_id = randomUUID();
  return { lease_id, identity: machineIdentity(instance, lease_id) };
}

export function stageRecorder(): { stage: (name: string, status: string, detail?: string) => void; stages: Map<string, { status: string; detail?: string }> } {
  const stages = new Map<string, { status: string; detail?: string }>();
  return { stages, stage: (name, status, detail) => { stages.set(name, { status, detail }); } };
}
