/**
 * The fake provider: machines are directories under one shared dir (see fake-store.ts), so
 * server processes and the reaper running separately see the same machines, and the ledger
 * counts exactly what was created and destroyed across all of them.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineProvider, readPackageVersion, VmhubError, type MachineRef, type OwnedMachine, type ProviderContext, type ProviderMethods, type TemplateConfig } from '@vmhub/core';
import { FakeChannel } from './fake-channel.ts';
import { FakeProviderOptionsSchema, FakeTemplateOptionsSchema, type FakeProviderOptions } from './fake-options.ts';
import { FakeSnapshots } from './fake-snapshots.ts';
import { defaultFakeDir, FakeStore, SOURCE } from './fake-store.ts';
import { fakeTemplate, stubTemplate } from './fake-templates.ts';

/** @vmhub/conformance's version (its fake plugins ship with it). */
export const VERSION = readPackageVersion(import.meta.url);

function providerOption<T>(template: TemplateConfig, key: string): T | undefined {
  return template.provider_options?.[key] as T | undefined;
}

/** Snapshots of a fake machine copy its files: memory only where the template says so (snapshot_memory). */
function snapshotSupport(template: TemplateConfig): { memory: boolean } | string {
  if (providerOption<boolean>(template, 'snapshots') === false) return `template ${template.id} sets provider_options.snapshots = false`;
  return { memory: providerOption<boolean>(template, 'snapshot_memory') === true };
}

/** A fake machine restarts in place (its files stay), graceful: its console log says so. */
function restartSupport(template: TemplateConfig): { graceful: boolean } | string {
  if (providerOption<boolean>(template, 'restarts') === false) return `template ${template.id} sets provider_options.restarts = false`;
  return { graceful: true };
}

/** The fake console log: one file per machine, a line per boot (fake-store.ts keeps the machine's directory). */
const CONSOLE_LOG = 'console.log';

function createMethods(options: FakeProviderOptions, context: ProviderContext): ProviderMethods {
  const store = new FakeStore(options.dir ?? defaultFakeDir());
  const snapshots = new FakeSnapshots(store);

  async function live(machine: MachineRef) {
    const record = await store.read(machine.external_id);
    if (!record || record.identity !== machine.identity) {
      throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] machine ${machine.external_id} carrying ${machine.identity} does not exist (destroyed?)`, { source: SOURCE });
    }
    return record;
  }

  return {
    async status() {
      if (options.down) return { ok: false, reason: `[vmhub] [${SOURCE}] down: true in the provider options (fake outage)` };
      return { ok: true, details: { dir: store.dir } };
    },

    async availability(template) {
      const reason = providerOption<string>(template, 'unavailable_reason');
      if (reason) return { availability: 'unavailable', reason };
      if (options.down) return { availability: 'unavailable', reason: 'fake provider is down (options.down)' };
      return { availability: 'available' };
    },

    async create(request) {
      if (providerOption<string>(request.template, 'fail_at') === 'create') {
        throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] create failed on purpose (template ${request.template.id} sets provider_options.fail_at = "create")`, { source: SOURCE });
      }
      request.signal.throwIfAborted();
      const { record, created } = await store.create(request.identity, request.lease_id, request.template.id);
      if (created && request.from_snapshot) await snapshots.fork(record.external_id, request.from_snapshot);
      context.log('info', created ? 'fake machine created' : 'fake machine already existed', { identity: record.identity, external_id: record.external_id });
      return { identity: record.identity, external_id: record.external_id, details: { dir: store.machineDir(record.external_id) } };
    },

    async ready(machine, request) {
      const delay = providerOption<number>(request.template, 'ready_delay_ms') ?? 100;
      request.stage('boot', 'running');
      await sleep(delay / 2, undefined, { signal: request.signal });
      await live(machine);
      if (providerOption<string>(request.template, 'fail_at') === 'ready') {
        request.stage('boot', 'failed', 'fail_at = "ready"');
        throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] machine ${machine.identity} never booted (template ${request.template.id} sets provider_options.fail_at = "ready")`, { source: SOURCE });
      }
      request.stage('boot', 'done');
      request.stage('agent', 'running');
      await sleep(delay - delay / 2, undefined, { signal: request.signal });
      const record = await live(machine);
      await store.write({ ...record, state: 'running' });
      request.stage('agent', 'done');
    },

    async destroy(machine) {
      const outcome = await store.destroy(machine.identity, machine.external_id);
      if (outcome === 'identity_mismatch') context.log('warn', 'fake machine carries another identity: left alone', { identity: machine.identity, external_id: machine.external_id });
      return outcome;
    },

    async list() {
      const records = await store.list();
      return records
        .filter((r) => r.identity.startsWith(context.identityPrefix))
        .map((r): OwnedMachine => ({ identity: r.identity, external_id: r.external_id, created_at: r.created_at, details: { state: r.state, lease_id: r.lease_id, template: r.template } }));
    },

    async state(machine) {
      const record = await store.read(machine.external_id);
      if (!record || record.identity !== machine.identity) return 'gone';
      return record.state === 'stopped' ? 'stopped' : 'running';
    },

    snapshotSupport,

    async snapshot(machine, request) {
      request.signal.throwIfAborted();
      const record = await live(machine);
      const support = snapshotSupport(request.template);
      if (typeof support === 'string') throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${support}`, { source: SOURCE });
      return snapshots.take(record.external_id, request.identity, request.template.id, support.memory);
    },

    async restore(machine, snapshot, options) {
      options.signal.throwIfAborted();
      await live(machine);
      await snapshots.restore(machine.external_id, machine.identity, snapshot);
    },

    async deleteSnapshot(snapshot) {
      const outcome = await snapshots.delete(snapshot);
      if (outcome === 'identity_mismatch') context.log('warn', 'fake snapshot carries another identity: left alone', { identity: snapshot.identity, external_id: snapshot.external_id });
      return outcome;
    },

    async listSnapshots() {
      return snapshots.list(context.identityPrefix);
    },

    restartSupport,

    async restart(machine, request) {
      request.signal.throwIfAborted();
      const record = await live(machine);
      const support = restartSupport(request.template);
      if (typeof support === 'string') throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${support}`, { source: SOURCE });
      request.stage('reboot', 'running');
      await appendFile(join(store.machineDir(record.external_id), CONSOLE_LOG), `fake machine ${record.identity} ${request.hard ? 'reset' : 'rebooting'} at ${new Date().toISOString()}\n`);
      await store.write({ ...record, state: 'created', booted_at: Date.now() });
      request.stage('reboot', 'done', request.hard ? 'reset' : 'rebooted');
    },

    async stats(machine) {
      const record = await live(machine);
      return { uptime_seconds: Math.max(0, (Date.now() - (record.booted_at ?? record.created_at)) / 1000) };
    },

    async logs(machine, o) {
      const record = await live(machine);
      const text = await readFile(join(store.machineDir(record.external_id), CONSOLE_LOG), 'utf8').catch(() => '');
      const all = text.slice(-o.max_bytes).split('\n').filter((l) => l !== '');
      return { source: 'fake console', lines: all.slice(-o.tail), truncated: all.length > o.tail || text.length > o.max_bytes };
    },

    async channel(machine) {
      await live(machine);
      return new FakeChannel(store.sandbox(machine.external_id));
    },
  };
}

export const fakeProvider = defineProvider<FakeProviderOptions>({
  id: 'fake',
  version: VERSION,
  contractVersion: 2,
  options: FakeProviderOptionsSchema,
  templateOptions: FakeTemplateOptionsSchema,
  templates: [fakeTemplate(), stubTemplate()],
  create: createMethods,
});

/** Named factory (no I/O): the fake provider bound to options and a context. */
export function createFakeProvider(options: Partial<FakeProviderOptions> = {}, context: ProviderContext) {
  return fakeProvider.create(options, context);
}
