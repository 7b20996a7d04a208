/**
 * Shared test fixture: the golden image (built when missing, timed), a provider instance with a
 * unique identity prefix, and cleanup of every container the test made.
 */
import { randomUUID } from 'node:crypto';
import type { ProviderContext, TemplateConfig } from '@vmhub/core';
import dockerProvider, { buildGolden, DockerClient, type DockerProviderOptions } from '../src/index.ts';

export const template: TemplateConfig = dockerProvider.templates[0]!;

const built = new Map<string, Promise<void>>();
/** Build a golden image (default debian-x11) if its tag is missing (prints how long it took). */
export function ensureGolden(name = 'debian-x11'): Promise<void> {
  let b = built.get(name);
  if (!b) {
    b = (async () => {
      const r = await buildGolden(name, { log: (l) => { if (process.env.VMHUB_TEST_VERBOSE) process.stderr.write(`[golden] ${l}\n`); } });
      process.stderr.write(`[golden] ${r.tag} ${r.rebuilt ? `built by ${r.method} in ${(r.duration_ms / 1000).toFixed(1)} s` : 'already present'} (${((r.size_bytes ?? 0) / 1e6).toFixed(0)} MB)\n`);
    })();
    built.set(name, b);
  }
  return b;
}

export function testContext(): ProviderContext & { instance: string; warnings: string[] } {
  const instance = `t${randomUUID().slice(0, 8)}`;
  const warnings: string[] = [];
  return {
    instance,
    identityPrefix: `vmhub-${instance}-`,
    warnings,
    log: (level, msg) => { if (level === 'warn' || level === 'error') warnings.push(msg); },
  };
}

export function makeProvider(options: Partial<DockerProviderOptions> = {}, context = testContext()) {
  return { provider: dockerProvider.create(options, context), context };
}

export const docker = new DockerClient();

/** Force-remove containers by id or name (test cleanup; ignores the already gone). */
export async function removeContainers(...refs: string[]): Promise<void> {
  for (const ref of refs) await docker.raw('DELETE', `/containers/${encodeURIComponent(ref)}`, { query: { force: true, v: true } });
}

export async function containerExists(ref: string): Promise<boolean> {
  const res = await docker.raw('GET', `/containers/${encodeURIComponent(ref)}/json`);
  return res.status !== 404;
}

export const stages = () => {
  const seen: string[] = [];
  return { seen, stage: (name: string, status: string) => { seen.push(`${name}:${status}`); } };
};
