/**
 * runProviderConformance(): one describe block that takes a provider through a machine's whole
 * life — shape, status, availability, create, ready, list, channel, snapshots, restart, stats and logs where the provider
 * has them, identity-checked destroy —
 * and says, for every failure, what the provider must change.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it, type TestContext } from 'node:test';
import { CONTRACT_VERSION, OLDEST_CONTRACT, currentPlugin, identityPrefix, inContractWindow, machineIdentity, VmhubError, type GuestChannel, type MachineRef, type Provider, type ProviderContext, type ProviderPlugin, type TemplateConfig } from '@vmhub/core';
import { check } from './expect.ts';
import { restartCheck, statsLogsCheck } from './provider-machine.ts';
import { snapshotCheck } from './provider-snapshots.ts';

export interface ProviderConformanceOptions<O = unknown> {
  /** The value your package's default export holds (defineProvider(...)). */
  plugin: ProviderPlugin<O>;
  /** Options passed to plugin.create (validated by defineProvider). */
  options?: Partial<O>;
  /** A template this provider can create now (its golden image must exist). */
  template: TemplateConfig;
  /** Overrides of the context; identityPrefix defaults to a fresh `vmhub-conf<random>-`. */
  context?: Partial<ProviderContext>;
  /** Bound for create + ready, and for each other step. Default 120 000 ms. */
  timeoutMs?: number;
  /** Guest path for the channel file round trip. Default `<channel.home ?? "/tmp">/vmhub-conformance-<random>.bin`. */
  channelPath?: string;
}

const REQUIRED = ['status', 'availability', 'create', 'ready', 'destroy', 'list'] as const;

async function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, what: string, fix: string): Promise<T> {
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => { ctl.abort(new Error(`${what} timed out`)); reject(new Error(`${what} did not finish within ${ms} ms\n  fix: ${fix}`)); }, ms);
  });
  try {
    return await Promise.race([work(ctl.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function runProviderConformance<O>(spec: ProviderConformanceOptions<O>): void {
  const { template } = spec;
  // A provider of the previous contract runs the suite through core's shim (contract-window.ts).
  const plugin = spec.plugin && spec.plugin.kind === 'provider' && inContractWindow(spec.plugin.contractVersion) ? currentPlugin(spec.plugin) as ProviderPlugin<O> : spec.plugin;
  const timeoutMs = spec.timeoutMs ?? 120_000;
  const instance = `conf${randomBytes(4).toString('hex')}`;
  const logs: string[] = [];
  const context: ProviderContext = {
    identityPrefix: identityPrefix(instance),
    log: (level, msg) => { logs.push(`${level}: ${msg}`); },
    ...spec.context,
  };
  const leaseId = randomUUID();
  const identity = `${context.identityPrefix}${leaseId}`;
  const name = `${plugin?.id ?? 'provider'}: provider`;
  let provider: Provider | undefined;
  let machine: MachineRef | undefined;
  let destroyed = false;

  const need = (t: TestContext, what: 'provider' | 'machine'): boolean => {
    if (what === 'provider' && !provider) { t.skip('needs the provider: the "plugin shape" test failed'); return false; }
    if (what === 'machine' && !machine) { t.skip('needs a machine: the "create" test failed'); return false; }
    if (what === 'machine' && destroyed) { t.skip('the machine was already destroyed by an earlier test'); return false; }
    return true;
  };

  describe(name, { timeout: timeoutMs * 6 }, () => {
    before(() => {
      try { provider = plugin.create(spec.options, context); } catch { /* reported by the shape test */ }
    });

    after(async () => {
      if (provider && machine && !destroyed) await provider.destroy(machine).catch(() => undefined);
      await provider?.close?.().catch(() => undefined);
    });

    it('plugin shape and contract version', () => {
      check(plugin && plugin.kind === 'provider', `default export is not a provider plugin (kind ${String((plugin as { kind?: unknown })?.kind)})`, 'export default defineProvider({...}) from @vmhub/core');
      check(/^[a-z][a-z0-9-]{0,39}$/.test(plugin.id), `provider id "${plugin.id}" is not a lowercase id`, 'use lowercase letters, digits and dashes');
      check(inContractWindow(plugin.contractVersion), `provider speaks contract ${plugin.contractVersion}, this @vmhub/core serves contracts ${OLDEST_CONTRACT}–${CONTRACT_VERSION}`, `write contractVersion: ${CONTRACT_VERSION} as a literal and rebuild against this @vmhub/core`);
      let made: Provider | undefined;
      try { made = plugin.create(spec.options, context); } catch (err) {
        check(false, `plugin.create(options, context) threw: ${(err as Error).message}`, 'create() must do no I/O and accept the options you pass to the suite');
      }
      for (const m of REQUIRED) check(typeof (made as unknown as Record<string, unknown>)[m] === 'function', `provider lacks ${m}()`, `implement ${m}() (see ProviderMethods in @vmhub/core)`);
      provider = made;
    });

    it('status() resolves with {ok} and never throws', async (t) => {
      if (!need(t, 'provider')) return;
      let status;
      try { status = await withTimeout(() => provider!.status(), 30_000, 'status()', 'status() must answer quickly; time out your own probes'); } catch (err) {
        check(false, `status() threw: ${(err as Error).message}`, 'catch backend errors in status() and return {ok: false, reason}');
      }
      check(typeof status?.ok === 'boolean', `status() returned ${JSON.stringify(status)}`, 'return {ok: boolean, reason?: string}');
      check(status!.ok, `status() says the backend is down: ${status!.reason ?? '(no reason given)'}`, 'start the backend the provider needs (daemon, API) before running the suite; and always give a reason when ok is false');
    });

    it('availability(template) is "available"', async (t) => {
      if (!need(t, 'provider')) return;
      let a;
      try { a = await provider!.availability(template); } catch (err) {
        check(false, `availability() threw: ${(err as Error).message}`, 'availability() must never throw: return {availability: "unavailable", reason}');
      }
      check(a && ['available', 'unavailable', 'stub'].includes(a.availability), `availability() returned ${JSON.stringify(a)}`, 'return {availability: "available" | "unavailable" | "stub", reason?}');
      check(a!.availability === 'available', `template ${template.id} is ${a!.availability}: ${a!.reason ?? '(no reason given)'}`, a!.reason ? 'do what the reason says (build the golden image, grant the privilege), or pass a template that exists' : 'give a reason whenever a template is not available');
    });

    it('create() returns a MachineRef carrying the identity', async (t) => {
      if (!need(t, 'provider')) return;
      const ref = await withTimeout((signal) => provider!.create({ lease_id: leaseId, identity, template, signal }), timeoutMs, 'create()', 'create must finish (or fail with PROVISION_FAILED) within the template\'s timeout');
      machine = ref;
      check(ref && typeof ref === 'object', `create() returned ${JSON.stringify(ref)}`, 'return {identity, external_id, node?, details?}');
      check(ref.identity === identity, `create() returned identity "${ref.identity}" for "${identity}"`, 'return the identity you were asked to stamp on the machine (label, tag or state record), unchanged');
      check(typeof ref.external_id === 'string' && ref.external_id.length > 0, 'create() returned no external_id', 'return the backend\'s own handle (container id, VMID, state dir) as external_id');
    });

    it('create() again with the same identity never makes a second machine', async (t) => {
      if (!need(t, 'machine')) return;
      let again: MachineRef | undefined;
      let error: unknown;
      try {
        again = await withTimeout((signal) => provider!.create({ lease_id: leaseId, identity, template, signal }), timeoutMs, 'second create()', 'a second create() for a live identity must return the existing machine or throw quickly');
      } catch (err) { error = err; }
      const twins = (await provider!.list()).filter((m) => m.identity === identity);
      for (const twin of twins) if (twin.external_id !== machine!.external_id) await provider!.destroy(twin).catch(() => undefined);
      check(twins.length === 1, `after a second create() with the same identity, list() shows ${twins.length} machines carrying it`, 'create() must be idempotent per identity: find the machine already carrying it (label, tag, state record) and return it, or throw ALREADY_EXISTS');
      if (again) check(again.external_id === machine!.external_id, `the second create() returned external_id ${again.external_id}, the first ${machine!.external_id}`, 'return the existing machine for an identity that already has one');
      else check(VmhubError.is(error), `the second create() threw a non-vmhub error: ${String(error)}`, 'throw VmhubError (e.g. ALREADY_EXISTS) from create()');
    });

    it('ready() reports stages and resolves within the timeout', async (t) => {
      if (!need(t, 'machine')) return;
      const stages: string[] = [];
      await withTimeout((signal) => provider!.ready(machine!, { signal, template, stage: (n, s) => { stages.push(`${n}:${s}`); } }), timeoutMs, 'ready()', 'ready() must resolve when the machine can be driven, or throw BOOT_TIMEOUT; honour request.signal');
      check(stages.length > 0, 'ready() reported no stage', 'call request.stage(name, "running" | "done", detail?) as readiness progresses (vm_lease_status shows them)');
      t.diagnostic(`stages: ${stages.join(' ')}`);
    });

    it('list() includes the machine, and only machines under the identity prefix', async (t) => {
      if (!need(t, 'machine')) return;
      const owned = await provider!.list();
      check(Array.isArray(owned), `list() returned ${JSON.stringify(owned)}`, 'return an array of {identity, external_id, created_at?}');
      const mine = owned.find((m) => m.identity === identity);
      check(mine, `list() does not include ${identity}`, 'list() must return every machine whose identity starts with context.identityPrefix (the reaper sweeps orphans with it)');
      check(mine.external_id === machine!.external_id, `list() gives external_id ${mine.external_id}, create() gave ${machine!.external_id}`, 'report the same external_id in list() and create()');
      const foreign = owned.filter((m) => !m.identity.startsWith(context.identityPrefix));
      check(foreign.length === 0, `list() returned machines of another instance: ${foreign.map((m) => m.identity).join(', ')}`, 'filter list() by context.identityPrefix: another vmhub instance\'s machines are not yours to reap');
    });

    it('channel(): exec round trip and file round trip', async (t) => {
      if (!need(t, 'machine')) return;
      if (!provider!.channel) { t.skip('provider has no channel() (console-only): adapters reach it through console()'); return; }
      const channel: GuestChannel = await provider!.channel(machine!, template);
      try {
        const r = await channel.exec(['echo', 'vmhub-conformance'], { timeoutMs: 30_000 });
        check(r.exit_code === 0 && r.stdout.toString().trim() === 'vmhub-conformance', `exec(["echo", "vmhub-conformance"]) gave exit ${r.exit_code}, stdout ${JSON.stringify(r.stdout.toString())}, stderr ${JSON.stringify(r.stderr.toString())}`, 'exec must run argv[0] with argv[1..] (no shell) and return exit_code and stdout as Buffers');
        const data = randomBytes(64 * 1024);
        const path = spec.channelPath ?? `${channel.home ?? '/tmp'}/vmhub-conformance-${randomBytes(4).toString('hex')}.bin`;
        await channel.putFile(path, data);
        const back = await channel.getFile(path);
        check(Buffer.isBuffer(back) && back.equals(data), `getFile(${path}) returned ${back?.length} bytes that differ from the ${data.length} put`, 'putFile/getFile must move bytes unchanged (binary safe, no newline or encoding translation)');
        let missing: unknown;
        try { await channel.getFile(`${path}.missing`); } catch (err) { missing = err; }
        check(VmhubError.is(missing) && missing.code === 'NOT_FOUND', `getFile of a missing file gave ${missing ? (VmhubError.is(missing) ? missing.code : String(missing)) : 'no error'}`, 'throw new VmhubError("NOT_FOUND", ...) for a missing file');
      } finally {
        await channel.close();
      }
    });

    it('channel(): exec honours an abort signal (a cancelled call stops in the guest)', async (t) => {
      if (!need(t, 'machine')) return;
      if (!provider!.channel) { t.skip('provider has no channel() (console-only)'); return; }
      const channel: GuestChannel = await provider!.channel(machine!, template);
      try {
        const pre = new AbortController();
        pre.abort(new Error('cancelled before start'));
        const before = await withTimeout(() => channel.exec(['sleep', '30'], { timeoutMs: 60_000, signal: pre.signal }), 5_000, 'exec with an aborted signal', 'an already-aborted signal must not start the command');
        check(before.exit_code === null && before.timed_out === true, `exec with an already-aborted signal gave exit ${before.exit_code}, timed_out ${before.timed_out}`, 'resolve at once with exit_code null and timed_out true when options.signal is already aborted');
        const started = Date.now();
        const r = await withTimeout(() => channel.exec(['sleep', '30'], { timeoutMs: 60_000, signal: AbortSignal.timeout(500) }), 10_000, 'exec aborted after 500 ms', 'kill the process when options.signal aborts, as on timeout, and resolve promptly');
        check(r.exit_code === null && r.timed_out === true, `exec(["sleep", "30"]) aborted after 500 ms gave exit ${r.exit_code}, timed_out ${r.timed_out} after ${Date.now() - started} ms`, 'on abort, kill the process as on timeout and resolve with exit_code null and timed_out true');
        const after = await channel.exec(['echo', 'still-serving'], { timeoutMs: 30_000 });
        check(after.exit_code === 0 && after.stdout.toString().trim() === 'still-serving', `exec after a cancelled one gave exit ${after.exit_code}`, 'a cancelled exec must leave the channel usable');
      } finally {
        await channel.close();
      }
    });

    it('state(): "running" for the ready machine, "gone" for a forged identity', async (t) => {
      if (!need(t, 'machine')) return;
      if (!provider!.state) { t.skip('the provider has no state() (optional: core then treats a machine absent from list() as gone)'); return; }
      const now = await provider!.state(machine!);
      check(now === 'running', `state() of the ready machine answered '${now}'`, 'return "running" for a machine that is up, "stopped" for one that exists but is stopped, "gone" when nothing carries its identity');
      const forged = await provider!.state({ ...machine!, identity: machineIdentity(instance, randomUUID()) });
      check(forged === 'gone', `state() with a forged identity answered '${forged}'`, 'state() must re-read the machine and compare the identity it carries, like destroy()');
    });

    it('snapshots, where snapshotSupport() says so: identity carried, listed, deleted by identity only', async (t) => {
      if (!need(t, 'machine')) return;
      await snapshotCheck(t, provider!, machine!, template, context.identityPrefix, timeoutMs);
    });

    it('stats() and logs(), where the provider has them: known figures only, bounded lines', async (t) => {
      if (!need(t, 'machine')) return;
      await statsLogsCheck(t, provider!, machine!, template, timeoutMs);
    });

    it('restart(), where restartSupport() says so: the same machine runs again; a forged identity is refused', async (t) => {
      if (!need(t, 'machine')) return;
      await restartCheck(t, provider!, machine!, template, instance, timeoutMs);
    });

    it('destroy() with a forged identity answers "identity_mismatch" and leaves the machine', async (t) => {
      if (!need(t, 'machine')) return;
      const forged = { ...machine!, identity: machineIdentity(instance, randomUUID()) };
      const outcome = await provider!.destroy(forged);
      if (outcome === 'destroyed') destroyed = true;
      check(outcome === 'identity_mismatch', `provider.destroy returned '${outcome}' for a forged identity`, 'destroy must re-read the machine by external_id and compare the identity it carries before touching it; return "identity_mismatch" and leave it alone');
      const still = (await provider!.list()).some((m) => m.identity === identity);
      check(still, 'the machine vanished from list() after a destroy with a forged identity', 'a mismatching identity must leave the machine untouched');
    });

    it('destroy() answers "destroyed" and the machine leaves list()', async (t) => {
      if (!need(t, 'machine')) return;
      const outcome = await withTimeout(() => provider!.destroy(machine!), timeoutMs, 'destroy()', 'destroy must finish within the timeout');
      check(outcome === 'destroyed', `provider.destroy returned '${outcome}' for the machine it created`, 'return "destroyed" after removing a machine whose identity matches');
      destroyed = true;
      const deadline = Date.now() + 30_000;
      let listed = true;
      while (listed && Date.now() < deadline) {
        listed = (await provider!.list()).some((m) => m.identity === identity);
        if (listed) await new Promise((r) => setTimeout(r, 250));
      }
      check(!listed, `${identity} is still in list() 30 s after destroy() returned "destroyed"`, 'destroy must really remove the machine (or list() must stop reporting it) before returning');
    });

    it('destroy() again answers "already_gone"', async (t) => {
      if (!machine) { t.skip('needs a machine: the "create" test failed'); return; }
      if (!destroyed) { t.skip('needs the machine destroyed: the previous test failed'); return; }
      const outcome = await provider!.destroy(machine);
      check(outcome === 'already_gone', `provider.destroy returned '${outcome}' for a machine already destroyed`, 'destroy must be idempotent: return "already_gone" when nothing carries that external_id any more');
      if (provider!.state) {
        const after = await provider!.state(machine);
        check(after === 'gone', `state() of a destroyed machine answered '${after}'`, 'return "gone" (never throw) when the machine no longer exists');
      }
    });
  });
}
