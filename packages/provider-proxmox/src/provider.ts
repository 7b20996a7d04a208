/**
 * The provider's methods: create (place, clone, tag, key), ready (ready.ts), destroy by identity,
 * list by identity prefix, and pooled guest channels.
 */
import { VmhubError, type CreateRequest, type DestroyOutcome, type GuestChannel, type MachineRef, type OwnedMachine, type ProviderMethods, type ReadyRequest, type TemplateConfig } from '@vmhub/core';
import { cloneTemplate, sweepStrays, type CloneSpec } from './clone.ts';
import { choosePlacement, listGuests, splitTags, type VmResource } from './cluster.ts';
import { encodeSshKeys, generateLeaseKeyPair } from './keys.ts';
import { configure, readConfig, remove, stop, type VmAt } from './lifecycle.ts';
import { openChannel } from './open-channel.ts';
import type { Params, PveClient } from './pve-client.ts';
import { isForbidden, isGone, toVmhubError } from './pve-errors.ts';
import { runReady } from './ready.ts';
import { providerStatus, templateAvailability } from './rights.ts';
import type { Runtime } from './runtime.ts';
import { identityTag, templateOptions, vmName } from './template-options.ts';

function refFor(client: PveClient, node: string, vmid: number, identity: string, extra: Record<string, unknown> = {}): MachineRef {
  return { identity, external_id: String(vmid), node, details: { endpoint: client.endpoint.id, node, vmid, ...extra } };
}

export function providerMethods(rt: Runtime): ProviderMethods & { callCounts(): Record<string, number> } {
  const log = rt.context.log;

  async function findByIdentity(identity: string): Promise<{ client: PveClient; guest: VmResource } | undefined> {
    const tag = identityTag(identity);
    for (const client of rt.clients) {
      const guests = await listGuests(client);
      const guest = guests.find((g) => splitTags(g.tags).includes(tag));
      if (guest) return { client, guest };
    }
    return undefined;
  }

  async function create(req: CreateRequest): Promise<MachineRef> {
    const t = templateOptions(req.template);
    const tag = identityTag(req.identity);
    const existing = await findByIdentity(req.identity).catch(() => undefined);
    if (existing) return refFor(existing.client, existing.guest.node, existing.guest.vmid, req.identity);

    const minFree = t.min_free_memory_mb ?? req.template.resources?.memory_mb ?? 0;
    const place = await choosePlacement(rt.clients, req.template.golden, t, minFree, req.signal);
    const keys = generateLeaseKeyPair(`vmhub-${req.lease_id}`);
    rt.secrets.put(req.identity, keys);
    const steps = rt.steps(req.signal);
    const spec: CloneSpec = {
      node: place.node, templateVmid: place.templateVmid, name: vmName(req.identity), identity: req.identity, tag,
      description: `Managed by vmhub; destroyed when the lease ends.\nidentity: ${req.identity}\nlease: ${req.lease_id}\ntemplate: ${req.template.id}\ncreated: ${new Date().toISOString()}`,
      full: t.full_clone, storage: t.storage, pool: t.pool, attempts: rt.options.lock_retries + 1, retryBaseMs: rt.options.retry_base_ms, task: steps.task, strays: [],
    };
    const sweep = async (): Promise<void> => {
      if (spec.strays.length === 0) return;
      const settle = Math.min(2 * rt.options.request_timeout_ms, 35_000);
      await sweepStrays(place.client, spec, settle, (vmid) => remove({ client: place.client, node: place.node, vmid }, rt.steps()))
        .catch((e: Error) => log('error', 'could not remove a stray clone of this lease: the reaper will find it by its tag', { node: place.node, error: e.message }));
    };
    let vmid: number;
    try {
      vmid = await cloneTemplate(place.client, spec);
    } catch (err) {
      await sweep();
      rt.secrets.drop(req.identity);
      throw err;
    }
    // Strays are looked at again while this lease's clone is configured.
    const swept = sweep();
    const vm: VmAt = { client: place.client, node: place.node, vmid };
    const params: Params = {
      tags: tag,
      ciuser: t.ciuser ?? rt.options.ciuser,
      sshkeys: encodeSshKeys([keys.publicKey]),
      ipconfig0: t.ipconfig0,
    };
    if (req.template.resources?.cpus !== undefined) params.cores = Math.max(1, Math.ceil(req.template.resources.cpus));
    if (req.template.resources?.memory_mb !== undefined) params.memory = String(req.template.resources.memory_mb);
    try {
      await configure(vm, params, steps);
    } catch (err) {
      // The clone is ours (we just made it) but untagged: remove it now, the reaper could not find it.
      log('warn', 'configuring the clone failed; removing it', { vmid, node: place.node, error: (err as Error).message });
      await remove(vm, rt.steps()).catch((e: Error) => log('error', 'could not remove an untagged clone: remove it by hand', { vmid, node: place.node, error: e.message }));
      await swept;
      rt.secrets.drop(req.identity);
      throw err;
    }
    await swept;
    log('info', 'clone created', { vmid, node: place.node, endpoint: place.client.endpoint.id, identity: req.identity });
    return refFor(place.client, place.node, vmid, req.identity, { template_vmid: place.templateVmid });
  }

  async function destroy(machine: MachineRef): Promise<DestroyOutcome> {
    const tag = identityTag(machine.identity);
    let { client, node, vmid } = rt.locate(machine);
    // Find where the VM is now (it may have migrated, or the ref may lack the endpoint).
    const candidates = client ? [client] : rt.clients;
    let config: Record<string, unknown> | undefined;
    // A 403 is treated like "gone" only when /cluster/resources (which lists every VM the token
    // may audit) does not show the VMID either: with pool-scoped rights a destroyed VM reads as 403.
    const absent = (err: unknown): boolean => isGone(err) || isForbidden(err);
    for (const c of candidates) {
      if (node) {
        try {
          config = await readConfig({ client: c, node, vmid });
          client = c;
          break;
        } catch (err) {
          if (!absent(err)) throw toVmhubError(err, `reading VM ${vmid} before destroying it`);
        }
      }
      const guest = (await listGuests(c)).find((g) => g.vmid === vmid);
      if (guest) {
        node = guest.node;
        client = c;
        try {
          config = await readConfig({ client: c, node, vmid });
        } catch (err) {
          throw toVmhubError(err, `reading VM ${vmid} before destroying it`);
        }
        break;
      }
    }
    const forget = async (): Promise<void> => {
      await rt.machines.get(machine.identity)?.channel?.close().catch(() => undefined);
      rt.machines.delete(machine.identity);
      rt.secrets.drop(machine.identity);
    };
    if (!config || !client || !node) {
      await forget();
      return 'already_gone';
    }
    if (!splitTags(config.tags as string | undefined).includes(tag)) {
      log('warn', 'refusing to destroy a VM that does not carry this lease\'s identity tag', { vmid, node, expected: tag, found: config.tags ?? null });
      return 'identity_mismatch';
    }
    const vm: VmAt = { client, node, vmid };
    await rt.machines.get(machine.identity)?.channel?.close().catch(() => undefined);
    try {
      await stop(vm, rt.steps());
      await remove(vm, rt.steps());
    } catch (err) {
      if (isGone(err) || (VmhubError.is(err) && err.code === 'NOT_FOUND')) {
        await forget();
        return 'already_gone';
      }
      throw toVmhubError(err, `destroying VM ${vmid}`);
    }
    await forget();
    log('info', 'VM destroyed', { vmid, node, identity: machine.identity });
    return 'destroyed';
  }

  async function list(): Promise<OwnedMachine[]> {
    const prefix = rt.context.identityPrefix;
    const prefixTag = identityTag(prefix);
    const out = new Map<string, OwnedMachine>();
    for (const client of rt.clients) {
      const guests = await listGuests(client);
      for (const g of guests) {
        const tag = splitTags(g.tags).find((x) => x.startsWith(prefixTag) && x.length > prefixTag.length);
        if (!tag || out.has(tag)) continue;
        const owned: OwnedMachine = refFor(client, g.node, g.vmid, prefix + tag.slice(prefixTag.length));
        if (g.status === 'running' && typeof g.uptime === 'number' && g.uptime > 0) owned.created_at = Date.now() - g.uptime * 1000;
        out.set(tag, owned);
      }
    }
    return [...out.values()];
  }

  // Any API failure that escaped a step still leaves as a mapped VmhubError, never INTERNAL.
  const guard = <A extends unknown[], R>(what: string, fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await fn(...args);
    } catch (err) {
      throw toVmhubError(err, what);
    }
  };

  return {
    status: () => providerStatus(rt),
    availability: (template: TemplateConfig) => templateAvailability(rt, template),
    create: guard('create', create),
    ready: guard('ready', (machine: MachineRef, req: ReadyRequest) => runReady(rt, machine, req)),
    destroy: guard('destroy', destroy),
    list: guard('list', list),
    channel: guard('channel', (machine: MachineRef, template: TemplateConfig): Promise<GuestChannel> => openChannel(rt, machine, template)),
    close: () => rt.close(),
    callCounts: () => rt.callCounts(),
  };
}

