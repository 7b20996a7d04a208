/**
 * Shared setup for the real-qemu tests: a temp root with a freshly built tiny-console golden, a
 * blank qcow2 "disk golden" (so the overlay path is exercised), and idle decoy qemu processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ProviderContext, TemplateConfig } from '@vmhub/core';
import { buildTinyConsoleGolden, tinyConsoleTemplate } from '../src/index.ts';

export async function tinyConsoleSetup(): Promise<{ root: string; template: TemplateConfig; diskTemplate: TemplateConfig; goldenDisk: string }> {
  const root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-test-'));
  const golden = await buildTinyConsoleGolden({ dir: join(root, 'golden') });
  const template = tinyConsoleTemplate(join(root, 'golden'));
  const goldenDisk = join(root, 'golden.qcow2');
  await execa('qemu-img', ['create', '-q', '-f', 'qcow2', goldenDisk, '64M']);
  const diskTemplate: TemplateConfig = { ...template, id: 'tiny-console-disk', golden: goldenDisk, provider_options: { ...template.provider_options, kernel: golden.kernel } };
  return { root, template, diskTemplate, goldenDisk };
}

export function testContext(prefix: string, logs: string[] = []): ProviderContext {
  return { identityPrefix: prefix, log: (level, msg, data) => { logs.push(`${level} ${msg} ${JSON.stringify(data ?? {})}`); } };
}

export function testPrefix(): string {
  return `vmhub-t${randomUUID().slice(0, 8)}-`;
}

/** An idle qemu (no machine, no CPU): cheap to keep around as a decoy. */
export async function idleQemu(name: string): Promise<ChildProcess> {
  const child = spawn('qemu-system-x86_64', ['-machine', 'none', '-nodefaults', '-display', 'none', '-S', '-name', name], { stdio: 'ignore' });
  await once(child, 'spawn');
  return child;
}

export async function sleeper(): Promise<ChildProcess> {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  await once(child, 'spawn');
  return child;
}

export function p50(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}
