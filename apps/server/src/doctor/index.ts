/**
 * `vmhub-server doctor [--json]`: checks everything a template needs on this host — Node.js,
 * configuration, the store, the reaper, the disk used by snapshots, the OCR engine, each provider's backend (Docker engine, qemu and KVM,
 * Proxmox reachability and token privileges), each template and each golden — one line per check
 * with what to run to fix it.
 * Exit 0 when Node, the store and every template of a configured provider are usable, 1 when one
 * is not, 2 on a bad command line.
 */
import { parseArgs } from 'node:util';
import { loadConfig, type VmhubConfig } from '@vmhub/core/config';
import type { Store } from '@vmhub/store';
import { VERSION } from '../catalog.ts';
import { docPath } from '../docs-path.ts';
import { Registry } from '../registry.ts';
import { snapshotCheck } from './snapshots.ts';
import { goldenChecks, nodeCheck, ocrCheck, pluginChecks, providerChecks, reaperCheck, standinCheck, storeCheck, templateChecks, type Check } from './checks.ts';

const MARK = { ok: '✔', fail: '✖', skip: '–' } as const;

export async function doctorCommand(argv: string[]): Promise<number> {
  let json: boolean;
  try {
    json = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, strict: true, allowPositionals: false }).values.json === true;
  } catch (err) {
    process.stderr.write(`vmhub-server doctor: ${(err as Error).message.split('\n')[0]}\nusage: vmhub-server doctor [--json]\n`);
    return 2;
  }
  const checks = await runChecks(import.meta.url);
  const failed = checks.filter((c) => c.counts && c.status === 'fail');
  await write(json ? JSON.stringify({ ok: failed.length === 0, version: VERSION, checks }, null, 2) + '\n' : render(checks, failed));
  return failed.length === 0 ? 0 : 1;
}

export async function runChecks(from: string): Promise<Check[]> {
  const checks: Check[] = [nodeCheck()];
  let config: VmhubConfig & { source: string | null };
  try {
    config = loadConfig();
  } catch (err) {
    checks.push({ check: 'config', subject: 'configuration', status: 'fail', detail: (err as Error).message, fix: `fix the file or variable it names (every key: ${docPath('configuration.md')})`, counts: true });
    return checks;
  }
  checks.push({ check: 'config', subject: config.source ?? 'no config file (defaults and env)', status: 'ok', detail: `instance "${config.instance}"${config.templates.length ? `, ${config.templates.length} templates of its own` : ''}` });
  const { defaultStatePath, openStore } = await import('@vmhub/store');
  let store: Store | undefined;
  let registry: Registry | undefined;
  try {
    const opened = await storeCheck(config.db ?? defaultStatePath(), async (path) => openStore({ path }));
    store = opened.store;
    checks.push(opened.check, await reaperCheck(store, config), await snapshotCheck(store, config), await ocrCheck(config.ocr));
    registry = await Registry.load(config, from);
    checks.push(...pluginChecks(registry));
    const providers = await providerChecks(registry);
    checks.push(...providers.checks);
    checks.push(...await templateChecks(registry, providers.unconfigured));
    checks.push(...standinCheck(registry));
    checks.push(...await goldenChecks(config, registry, from, providers.unconfigured));
  } finally {
    await registry?.close();
    await store?.close().catch(() => undefined);
  }
  return checks;
}

/** Written before the CLI exits: process.exit() does not wait for a pipe written asynchronously (macOS). */
function write(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text, () => resolve()));
}

function render(checks: Check[], failed: Check[]): string {
  const width = Math.max(...checks.map((c) => c.check.length));
  // Each line already names its component: the `[vmhub] [provider-x]` prefixes of plugin reasons are noise here.
  const plain = (text: string) => text.replace(/\[vmhub\](?: \[[^\]\s]+\])? ?/g, '');
  const lines = checks.map((c) => `${MARK[c.status]} ${c.check.padEnd(width)}  ${c.subject === c.check ? '' : `${c.subject}: `}${plain(c.detail)}${c.fix ? `  → fix: ${plain(c.fix)}` : ''}`);
  const usable = checks.filter((c) => c.check === 'template' && c.status === 'ok').length;
  lines.push('', failed.length === 0
    ? `ok: ${usable} template${usable === 1 ? '' : 's'} usable, nothing configured is broken`
    : `${failed.length} problem${failed.length === 1 ? '' : 's'}: ${failed.map((c) => `${c.check} ${c.subject}`).join(', ')}`);
  return lines.join('\n') + '\n';
}
