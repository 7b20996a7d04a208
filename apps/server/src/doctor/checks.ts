/**
 * What `vmhub-server doctor` looks at. Everything about a backend comes through the plugin
 * contract (status(), availability(), goldens()), as vm_health and `golden` see it: this file
 * names no provider package. Each check says what is wrong and what to run about it.
 */
import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ProviderPlugin } from '@vmhub/core';
import { discoverPlugins, type VmhubConfig } from '@vmhub/core/config';
import type { Store } from '@vmhub/store';
import { providerHealth, tidyReason } from '../catalog.ts';
import { docPath, pluginDoc } from '../docs-path.ts';
import type { Registry } from '../registry.ts';
import { isStoreUrl } from '../store-target.ts';

export interface Check {
  /** What kind of thing: node, config, store, reaper, plugin, provider, template, golden. */
  check: string;
  subject: string;
  /** ok ✔, fail ✖, skip – (not configured, not used, or not known). */
  status: 'ok' | 'fail' | 'skip';
  detail: string;
  fix?: string;
  /** A failure here makes doctor exit 1 (Node, the store, templates of configured providers). */
  counts?: boolean;
}

const MIN_NODE_MAJOR = 22;

export function nodeCheck(version = process.versions.node): Check {
  const ok = Number(version.split('.')[0]) >= MIN_NODE_MAJOR;
  return { check: 'node', subject: 'Node.js', status: ok ? 'ok' : 'fail', detail: `v${version}${ok ? '' : `, older than ${MIN_NODE_MAJOR}`}`, counts: true, ...(ok ? {} : { fix: `install Node.js ${MIN_NODE_MAJOR}+ (https://nodejs.org, or \`nvm install ${MIN_NODE_MAJOR}\`)` }) };
}

/**
 * The store's file (or, before the first run, its directory) must be writable by this user; a
 * PostgreSQL store (a URL) must answer: connected, migrated, its open leases counted. A URL is
 * shown with its password masked.
 */
export async function storeCheck(path: string, open: (path: string) => Promise<Store>): Promise<{ check: Check; store?: Store }> {
  if (isStoreUrl(path)) return urlStoreCheck(path, open);
  const fix = `set VMHUB_DB (or "db" in the config) to a file this user can write, or fix the permissions of ${dirname(path)}`;
  const fail = (detail: string): { check: Check } => ({ check: { check: 'store', subject: path, status: 'fail', detail, fix, counts: true } });
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const exists = await stat(path).then(() => true, () => false);
    await access(exists ? path : dirname(path), constants.W_OK);
  } catch (err) {
    return fail(`not writable: ${(err as Error).message}`);
  }
  try {
    const store = await open(path);
    const live = await store.countLeases({ status: ['provisioning', 'starting', 'ready', 'releasing', 'expired'] });
    return { check: { check: 'store', subject: path, status: 'ok', detail: `writable, ${live} open lease${live === 1 ? '' : 's'}`, counts: true }, store };
  } catch (err) {
    // A better-sqlite3 built for another Node.js is no permissions problem: its fix is a rebuild.
    const native = err as { code?: unknown; detail?: string; fix?: string };
    if (native.code === 'STORE_NATIVE_MODULE') return { check: { check: 'store', subject: path, status: 'fail', detail: `cannot be opened: ${native.detail}`, fix: native.fix!, counts: true } };
    return fail(`cannot be opened: ${(err as Error).message}`);
  }
}

async function urlStoreCheck(url: string, open: (path: string) => Promise<Store>): Promise<{ check: Check; store?: Store }> {
  // The store's own masking (doctor loads the store anyway).
  let subject = (await import('@vmhub/store')).redact(url);
  let store: Store | undefined;
  try {
    store = await open(url);
    subject = store.path;
    await store.ready();
    const live = await store.countLeases({ status: ['provisioning', 'starting', 'ready', 'releasing', 'expired'] });
    return { check: { check: 'store', subject, status: 'ok', detail: `${store.kind} reachable, ${live} open lease${live === 1 ? '' : 's'}`, counts: true }, store };
  } catch (err) {
    await store?.close().catch(() => undefined);
    const config = (err as { code?: unknown }).code === 'STORE_CONFIG';
    return { check: { check: 'store', subject, status: 'fail', detail: `${config ? 'unusable' : 'unreachable'}: ${(err as Error).message}`, counts: true,
      fix: config ? 'set VMHUB_DB (or "db" in the config) to a SQLite file path or postgres://user:password@host:5432/database' : 'start PostgreSQL or fix the host, port, user, password or database in VMHUB_DB (or "db" in the config)' } };
  }
}

type LockHolder = (name: string) => Promise<{ holder: string; until: number } | undefined>;

/** Whether a reaper holds this store's lock (stores without locks cannot say). */
export async function reaperCheck(store: Store | undefined, config: VmhubConfig): Promise<Check> {
  const lockHolder = (store as { lockHolder?: LockHolder } | undefined)?.lockHolder?.bind(store);
  const base = { check: 'reaper', subject: 'reaper' } as const;
  if (!lockHolder) return { ...base, status: 'skip', detail: 'unknown: this store cannot tell whether a reaper runs' };
  const held = await lockHolder('reaper').catch(() => undefined);
  if (held) return { ...base, status: 'ok', detail: `running (${held.holder})` };
  const autostart = (config.reaper as { autostart?: boolean }).autostart !== false;
  return autostart
    ? { ...base, status: 'skip', detail: 'none running now: the server starts one with the first lease (reaper.autostart)' }
    : { ...base, status: 'skip', detail: 'none running, and reaper.autostart is off: expired leases keep their machines', fix: `run \`vmhub-reaper\` as a service (${docPath('reaper.md')}), or turn reaper.autostart on` };
}

export function pluginChecks(registry: Registry): Check[] {
  return registry.plugins.filter((p) => !p.ok).map((p) => ({
    check: 'plugin', subject: `${p.package}${p.kind === 'package' ? '' : ` (${p.kind} ${p.id})`}`, status: 'fail' as const,
    detail: tidyReason(p.reason ?? 'unusable'), fix: `reinstall or upgrade ${p.package} next to @vmhub/server, or remove it from "plugins"`,
  }));
}

/** Stand-in templates asked for (standin_templates) but none installed: say why and what to do. */
export function standinCheck(registry: Registry): Check[] {
  if (!registry.standinsAbsent) return [];
  const [detail, fix] = registry.standinsAbsent.split('; ') as [string, string | undefined];
  return [{ check: 'template', subject: 'stand-ins (standin_templates)', status: 'fail', detail, fix: fix ?? 'run vmhub-server from a checkout of the vmhub repository', counts: true }];
}

/** Each provider's status(); also says which providers nobody configured (their templates are skipped). */
export async function providerChecks(registry: Registry): Promise<{ checks: Check[]; unconfigured: Set<string> }> {
  const unconfigured = new Set<string>();
  const checks = await Promise.all([...registry.providers].map(async ([id, provider]): Promise<Check> => {
    const s = await providerHealth(provider);
    const base = { check: 'provider', subject: id };
    if (s.not_configured) {
      unconfigured.add(id);
      return { ...base, status: 'skip', detail: `not configured: ${s.reason ?? 'no settings'}`, fix: `only if you want it: configure providers.${id} (${pluginDoc('providers', id)})` };
    }
    const nodes = s.nodes?.map((n) => `${n.id} ${n.status}${n.detail ? ` (${n.detail})` : ''}`).join(', ');
    if (!s.ok) {
      const { detail, fix } = splitFix(s.reason ?? 'not ok');
      return { ...base, status: 'fail', detail: [detail, nodes].filter(Boolean).join('; '), fix: fix ?? `check providers.${id} in the config (${pluginDoc('providers', id)})` };
    }
    return { ...base, status: 'ok', detail: [summary(s.details), nodes].filter(Boolean).join('; ') || 'ok' };
  }));
  return { checks, unconfigured };
}

/** A provider's own facts worth a glance (versions, where it runs, KVM or TCG). */
function summary(details: Record<string, unknown> | undefined): string {
  if (!details) return '';
  const parts: string[] = [];
  for (const key of ['version', 'api_version', 'host', 'accel', 'state_dir']) {
    const v = details[key];
    if (typeof v === 'string' || typeof v === 'number') parts.push(`${key} ${v}`);
  }
  // QEMU under TCG works, only slower: say why KVM is not used and how to get it.
  if (details.accel === 'tcg' && typeof details.accel_reason === 'string') parts.push(`no KVM: ${details.accel_reason} (VMs run under TCG, slower; enable virtualization and give this user /dev/kvm)`);
  return parts.join(', ');
}

export async function templateChecks(registry: Registry, unconfigured: Set<string>): Promise<Check[]> {
  return Promise.all([...registry.templates.values()].map(async (t): Promise<Check> => {
    const base = { check: 'template', subject: t.id };
    if (unconfigured.has(t.provider)) return { ...base, status: 'skip', detail: `provider "${t.provider}" is not configured` };
    const missing = registry.missing(t);
    const hide = `hide it with "disabled_templates": ["${t.id}"]`;
    if (missing) return { ...base, status: 'fail', detail: tidyReason(missing), fix: `install the plugin it names, or ${hide}`, counts: true };
    const a = await registry.providers.get(t.provider)!.availability(t).catch((err: Error) => ({ availability: 'unavailable' as const, reason: err.message }));
    if (a.availability === 'unavailable') {
      const { detail, fix } = splitFix(tidyReason(a.reason ?? 'unavailable'));
      return { ...base, status: 'fail', detail, fix: `${fix ?? `see ${pluginDoc('providers', t.provider)}`}; or ${hide}`, counts: true };
    }
    const caps = registry.adapterFor(t)?.capabilities.length ?? 0;
    return { ...base, status: 'ok', detail: `${t.provider} + ${t.adapter}, ${caps} capabilities${a.availability === 'stub' ? ' (stub)' : ''}` };
  }));
}

/**
 * Every golden the installed providers can build, found as `vmhub-server golden` finds them. A
 * golden no template of this server uses is not a problem when missing.
 */
export async function goldenChecks(config: VmhubConfig, registry: Registry, from: string, unconfigured: Set<string>): Promise<Check[]> {
  const packages = await discoverPlugins({ from, kinds: ['provider'], names: config.plugins });
  const out: Check[] = [];
  for (const pkg of packages) {
    for (const plugin of pkg.plugins) {
      if (plugin.kind !== 'provider' || unconfigured.has(plugin.id)) continue;
      let images;
      try {
        images = (plugin as ProviderPlugin).goldens(config.providers[plugin.id] ?? {});
      } catch (err) {
        out.push({ check: 'golden', subject: `${plugin.id} goldens`, status: 'fail', detail: `cannot list them: ${(err as Error).message}`, fix: `check providers.${plugin.id} in the config` });
        continue;
      }
      for (const name of images?.names ?? []) {
        const base = { check: 'golden', subject: name };
        const s = await images!.status(name).catch((err: Error) => err);
        if (s instanceof Error) {
          // The backend did not answer (Docker down): that says nothing about the golden.
          const { detail, fix } = splitFix(tidyReason(s.message));
          const usedById = [...registry.templates.values()].some((t) => t.provider === plugin.id && t.id === name);
          out.push({ ...base, status: usedById ? 'fail' : 'skip', detail: `cannot tell whether it is built: ${detail}`, fix: fix ?? `see the provider ${plugin.id} check above` });
          continue;
        }
        const used = [...registry.templates.values()].some((t) => t.provider === plugin.id && (t.id === name || t.golden === s.ref));
        if (s.built) out.push({ ...base, status: 'ok', detail: `built (${s.ref})` });
        else if (!used) out.push({ ...base, status: 'skip', detail: `not built (${s.ref}); no template of this server uses it` });
        else out.push({ ...base, status: 'fail', detail: `not built (${s.ref})`, fix: `vmhub-server golden build ${name}` });
      }
    }
  }
  return out;
}

const IMPERATIVE = /^(run|start|set|install|apt-get|build|grant|add|use|ask|check|enable|give|pull|docker|upgrade|create)\b/i;

/**
 * Plugins end their reasons with the fix ("…: start it (dockerd) or set DOCKER_HOST", "…: run
 * `vmhub-server golden build x`"): split it off so doctor can show it as the fix.
 */
export function splitFix(reason: string): { detail: string; fix?: string } {
  const command = /`([^`]+)`/.exec(reason);
  const at = reason.lastIndexOf(': ');
  const tail = at >= 0 ? reason.slice(at + 2) : '';
  if (at >= 0 && IMPERATIVE.test(tail)) return { detail: reason.slice(0, at), fix: tail };
  if (command) return { detail: reason, fix: `run \`${command[1]}\`` };
  return { detail: reason };
}

/** The OCR engine of the text tools; its absence never fails doctor (those tools then say why). */
export async function ocrCheck(config: VmhubConfig['ocr']): Promise<Check> {
  const base = { check: 'ocr', subject: 'ocr' } as const;
  if (config.engine === 'none') return { ...base, status: 'skip', detail: 'turned off (ocr.engine "none"): vm_find_text, vm_wait {for: "text"}, vm_click {text} and marks answer CAPABILITY_UNAVAILABLE' };
  const { detectTesseract } = await import('@vmhub/core/ocr');
  const r = await detectTesseract({ ...(config.tesseract_path ? { binary: config.tesseract_path } : {}), languages: config.languages });
  if ('engine' in r) return { ...base, status: 'ok', detail: `${r.engine.id} (${config.languages})` };
  return { ...base, status: 'fail', detail: `${r.problem}: the text tools answer CAPABILITY_UNAVAILABLE`, fix: r.hint };
}
