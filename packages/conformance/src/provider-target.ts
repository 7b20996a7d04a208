/**
 * providerTarget(): a target for runAdapterConformance on a REAL machine. It makes the machine
 * the way the server does — `plugin.create(options, context)`, then create + ready, bounded — and
 * hands back the LeaseContext an adapter's `open()` gets in production: channel() and console()
 * open once, on first use, and dispose() closes them (as the server's lease session does), then
 * destroys the machine by identity and checks that it is gone.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { GuestPorts, identityPrefix, machineIdentity, VmhubError, type ConsoleHandle, type GuestChannel, type LeaseContext, type MachineRef, type Provider, type ProviderContext, type ProviderPlugin, type TemplateConfig } from '@vmhub/core';
import type { AdapterTarget } from './types.ts';

export interface ProviderTargetOptions<O = unknown> {
  /** The provider package's default export (defineProvider(...)), e.g. @vmhub/provider-docker. */
  plugin: ProviderPlugin<O>;
  /** Options for plugin.create (validated by defineProvider). Default `{}`. */
  options?: Partial<O>;
  /** The template to create: its `adapter` is the id of the adapter under test. */
  template: TemplateConfig;
  /** Instance name in the machine's identity (`vmhub-<instance>-<lease>`). Default `target<hex>`. */
  instance?: string;
  /** Bound for create + ready together. Default 300 000 ms. */
  timeoutMs?: number;
  /** The provider's log sink. Default: warnings and errors to stderr. */
  log?: ProviderContext['log'];
}

const SOURCE = 'conformance';
const fail = (code: 'CAPABILITY_UNAVAILABLE' | 'INTERNAL' | 'LEASE_EXPIRED', message: string, hint?: string) =>
  new VmhubError(code, `[vmhub] [${SOURCE}] ${message}`, { source: SOURCE, ...(hint ? { hint } : {}) });

export async function providerTarget<O>(spec: ProviderTargetOptions<O>): Promise<AdapterTarget> {
  const { plugin, template } = spec;
  const instance = spec.instance ?? `target${randomBytes(4).toString('hex')}`;
  const log = spec.log ?? ((level, msg) => { if (level === 'warn' || level === 'error') process.stderr.write(`[${level}] ${msg}\n`); });
  const provider = plugin.create(spec.options, { identityPrefix: identityPrefix(instance), log });
  const leaseId = randomUUID();
  const identity = machineIdentity(instance, leaseId);
  const what = `template "${template.id}" on provider "${plugin.id}"`;
  let machine: MachineRef | undefined;
  try {
    // Ask first: "Docker is not running" or "golden not built" beats a create that fails deep down.
    const avail = await provider.availability(template);
    if (avail.availability !== 'available') throw fail('CAPABILITY_UNAVAILABLE', `${what} is ${avail.availability}: ${avail.reason ?? 'no reason given'}`, 'Make the template available (start the backend, build its golden image), then run the tests again.');
    const signal = AbortSignal.timeout(spec.timeoutMs ?? 300_000);
    machine = await provider.create({ lease_id: leaseId, identity, template, signal });
    await provider.ready(machine, { signal, template, stage: () => undefined });
  } catch (err) {
    await destroy(provider, machine ?? (await provider.list().catch(() => [])).find((m) => m.identity === identity)).catch(() => undefined);
    await provider.close?.().catch(() => undefined);
    throw err;
  }
  return leaseTarget(provider, leaseId, machine, template);
}

/** The lease half: connections opened once and closed at the end, like the server's LeaseSession. */
function leaseTarget(provider: Provider, leaseId: string, machine: MachineRef, template: TemplateConfig): AdapterTarget {
  let ended = false;
  const opened: Promise<{ close(): Promise<void> }>[] = [];
  // A failed open is forgotten, so the next use retries (as in the server).
  const once = <T extends { close(): Promise<void> }>(open: (() => Promise<T>) | undefined, kind: string) => {
    let conn: Promise<T> | undefined;
    return (): Promise<T> => {
      if (ended) return Promise.reject(fail('LEASE_EXPIRED', `the target's lease ${leaseId} has ended`));
      if (!open) return Promise.reject(fail('CAPABILITY_UNAVAILABLE', `provider "${provider.id}" offers no ${kind} for template ${template.id}`));
      if (!conn) {
        const opening = open();
        conn = opening;
        opened.push(opening);
        opening.catch(() => { if (conn === opening) conn = undefined; });
      }
      return conn;
    };
  };
  const ports = new GuestPorts((port, signal) => provider.connect
    ? provider.connect(machine, port, { template, signal })
    : Promise.reject(fail('CAPABILITY_UNAVAILABLE', `provider "${provider.id}" cannot reach ports inside its machines (template ${template.id})`)), { tcp: template.forward_tcp === true });
  const context: LeaseContext = {
    lease_id: leaseId, machine, template,
    channel: once<GuestChannel>(provider.channel && (() => provider.channel!(machine, template)), 'guest channel'),
    console: once<ConsoleHandle>(provider.console && (() => provider.console!(machine)), 'console'),
    connect: (port) => ended ? Promise.reject(fail('LEASE_EXPIRED', `the target's lease ${leaseId} has ended`)) : ports.connect(port),
    forward: (port) => ended ? Promise.reject(fail('LEASE_EXPIRED', `the target's lease ${leaseId} has ended`)) : ports.forward(port),
    secret: async (name) => (provider.secret ? provider.secret(machine, name, { template }) : undefined),
    framebuffer: async () => (provider.framebuffer ? provider.framebuffer(machine, { template }) : undefined),
  };
  return {
    context,
    async dispose() {
      if (ended) return;
      ended = true;
      try {
        await Promise.all(opened.map(async (p) => (await p.catch(() => undefined))?.close().catch(() => undefined)));
        await ports.close();
        await destroy(provider, machine);
      } finally {
        await provider.close?.().catch(() => undefined);
      }
    },
  };
}

/** Destroy by identity (the provider re-reads it); anything but gone is a failure to report. */
async function destroy(provider: Provider, machine: MachineRef | undefined): Promise<void> {
  if (!machine) return;
  const outcome = await provider.destroy(machine);
  if (outcome !== 'destroyed' && outcome !== 'already_gone') {
    throw fail('INTERNAL', `destroying ${machine.identity} (${machine.external_id}) answered "${outcome}"`, 'The machine is still there: remove it by hand, and check the provider stamps the identity it was given.');
  }
}
