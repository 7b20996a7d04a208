/**
 * VM config read and update (GET, synchronous PUT, asynchronous POST) with qemu-server's rules:
 * lock and digest checks, per-key privileges, tag normalisation and tag-access rules, the
 * `sshkeys` URL-encoding quirk (stored and returned encoded), hashed `cipassword`, and pending
 * changes for keys that a running VM cannot take until its next cold start.
 */
import { createHash } from 'node:crypto';
import type { HandlerContext } from '../handler.ts';
import { bool, lockCheck, sleep, vmTask } from '../handler.ts';
import { fail, paramError, permError } from '../pve-error.ts';
import { hasPrivs, requirePrivs, type Caller } from '../auth.ts';
import type { Cluster } from '../cluster.ts';
import type { ConfigValue, SimVm } from '../model.ts';
import { normalizeTags, tagSet } from '../tags.ts';
import { lookupProp } from '../pve-validate.ts';
import { splitList } from '../pve-formats.ts';

const CONTROL = new Set(['node', 'vmid', 'delete', 'revert', 'digest', 'skiplock', 'force', 'background_delay']);
/** Applied at once even on a running VM (qemu-server's "fast plug" options + cloud-init). */
const FAST = /^(name|description|tags|onboot|protection|startup|hookscript|ciuser|cipassword|citype|ciupgrade|cicustom|sshkeys|nameserver|searchdomain|ipconfig\d+|lock|template)$/;

export function configDigest(vm: SimVm): string {
  const sorted = Object.keys(vm.config).sort().map((k) => `${k}: ${vm.config[k]}`).join('\n');
  const pending = Object.keys(vm.pending).sort().map((k) => `${k}: ${vm.pending[k]}`).join('\n');
  return createHash('sha1').update(`${sorted}\n[PENDING]\n${pending}`).digest('hex');
}

export function getConfig({ cluster, params }: HandlerContext): Record<string, ConfigValue> {
  const vm = cluster.vmOn(params.node, params.vmid);
  const merged = bool(params.current) ? { ...vm.config } : { ...vm.config, ...vm.pending };
  if (merged.cipassword !== undefined) merged.cipassword = '**********';
  return { ...merged, digest: configDigest(vm) };
}

export function getPending({ cluster, params }: HandlerContext): unknown[] {
  const vm = cluster.vmOn(params.node, params.vmid);
  const keys = new Set([...Object.keys(vm.config), ...Object.keys(vm.pending)]);
  return [...keys].sort().map((key) => ({
    key,
    // the pending view is typed as strings in the schema, unlike GET config
    ...(key in vm.config ? { value: String(vm.config[key]) } : {}),
    ...(key in vm.pending ? { pending: String(vm.pending[key]) } : {}),
  }));
}

export function putConfig(ctx: HandlerContext): null {
  const { vm, apply } = prepareUpdate(ctx);
  apply(vm);
  return null;
}

export async function postConfig(ctx: HandlerContext): Promise<string | null> {
  const { cluster, params } = ctx;
  const { vm, apply } = prepareUpdate(ctx);
  const task = vmTask(ctx, vm, {
    type: 'qmconfig',
    durationMs: cluster.timing.configMs,
    finish: () => apply(vm),
  });
  const delay: number | undefined = params.background_delay;
  if (delay === undefined) return task.upid;
  const deadline = Date.now() + delay * 1000;
  while (Date.now() < deadline && task.status === 'running') {
    await sleep(Math.min(25, Math.max(1, task.endsAt - Date.now())));
    cluster.tick();
  }
  if (task.status === 'running') return task.upid;
  if (task.exitstatus !== 'OK') throw fail(`failed to update VM ${vm.vmid}: ${task.exitstatus}`);
  return null;
}

function prepareUpdate(ctx: HandlerContext): { vm: SimVm; apply: (vm: SimVm) => void } {
  const { cluster, caller, params, template } = ctx;
  const vm = cluster.vmOn(params.node, params.vmid);
  if (bool(params.skiplock) && caller.user !== 'root@pam') throw paramError({ skiplock: 'Only root may use this option.' });
  if (params.digest !== undefined && params.digest !== configDigest(vm)) throw fail('checksum mismatch (file change by other user?)');
  lockCheck(ctx, vm);

  const props = cluster.schemaProps(template);
  const sets: Record<string, ConfigValue> = {};
  for (const [k, v] of Object.entries(params)) {
    if (CONTROL.has(k)) continue;
    sets[k] = storedValue(props?.[k] ?? lookupProp(props, k), v);
  }
  const deletes = params.delete ? splitList(String(params.delete)) : [];
  for (const k of deletes) if (k in sets) throw paramError({ delete: `cannot set and delete '${k}' at the same time` });
  for (const k of [...Object.keys(sets), ...deletes]) checkKeyPrivilege(cluster, caller, vm, k);

  if ('tags' in sets) sets.tags = normalizeTags(String(sets.tags));
  const newTags = deletes.includes('tags') ? [] : 'tags' in sets ? tagSet(String(sets.tags)) : undefined;
  if (newTags) checkTagAccess(cluster, caller, tagSet(vm.config.tags as string | undefined), newTags);
  if ('sshkeys' in sets) validateSshKeys(String(sets.sshkeys));
  if ('cipassword' in sets) sets.cipassword = `$5$sim$${createHash('sha256').update(String(sets.cipassword)).digest('base64url')}`;
  for (const [k, v] of Object.entries(sets)) if (DISK.test(k)) sets[k] = allocated(cluster, vm, String(v));

  const apply = (target: SimVm): void => {
    for (const [k, v] of Object.entries(sets)) {
      if (target.status === 'running' && !FAST.test(k)) target.pending[k] = v;
      else target.config[k] = v;
    }
    for (const k of deletes) {
      delete target.config[k];
      delete target.pending[k];
    }
  };
  return { vm, apply };
}

/**
 * A new disk (`STORAGE:SIZE_GiB[,options]`) is allocated as qemu-server does: a volume
 * `STORAGE:vm-<vmid>-disk-<n>` owned by the VM, stored with its `size`. Any other value (an
 * existing volume, another VM's included) is stored as given.
 */
function allocated(cluster: Cluster, vm: SimVm, value: string): string {
  const m = /^([A-Za-z][\w.-]*):(\d+(?:\.\d+)?)(,.*)?$/.exec(value);
  if (!m) return value;
  let n = 0;
  while (cluster.volumes.has(`${m[1]}:vm-${vm.vmid}-disk-${n}`)) n++;
  const volume = `${m[1]}:vm-${vm.vmid}-disk-${n}`;
  cluster.volumes.add(volume);
  return `${volume}${m[3] ?? ''},size=${m[2]}G`;
}

function storedValue(schema: { type?: string } | undefined, v: unknown): ConfigValue {
  if (schema?.type === 'integer' || schema?.type === 'boolean') return Number(v);
  return String(v);
}

const CPU = /^(cores|sockets|vcpus|cpu|cpulimit|cpuunits|affinity|numa\d*)$/;
const MEMORY = /^(memory|balloon|shares)$/;
const CLOUDINIT = /^(ciuser|cipassword|citype|ciupgrade|cicustom|sshkeys|nameserver|searchdomain|ipconfig\d+)$/;
const DISK = /^(scsi|virtio|sata|ide|efidisk|tpmstate|unused)\d+$/;
const HW = /^(usb|serial|parallel|hostpci|audio|rng|virtiofs)\d+$|^(vga|machine|bios|scsihw|tablet|keyboard|watchdog|ivshmem|smbios1|vmgenid|arch|kvm|acpi|localtime|spice_enhancements|tdf|hugepages|keephugepages|amd-sev|intel-tdx)$/;
const ROOT_ONLY = /^(lock|args|vmstatestorage|hookscript)$/;

function checkKeyPrivilege(cluster: Cluster, caller: Caller, vm: SimVm, key: string): void {
  const path = `/vms/${vm.vmid}`;
  if (ROOT_ONLY.test(key)) {
    if (caller.user !== 'root@pam') throw fail(`only root can set '${key}' config`);
  } else if (CPU.test(key)) requirePrivs(cluster, caller, path, ['VM.Config.CPU']);
  else if (MEMORY.test(key)) requirePrivs(cluster, caller, path, ['VM.Config.Memory']);
  else if (CLOUDINIT.test(key)) requirePrivs(cluster, caller, path, ['VM.Config.Cloudinit', 'VM.Config.Network'], true);
  else if (/^net\d+$/.test(key)) requirePrivs(cluster, caller, path, ['VM.Config.Network']);
  else if (DISK.test(key)) requirePrivs(cluster, caller, path, ['VM.Config.Disk']);
  else if (HW.test(key)) requirePrivs(cluster, caller, path, ['VM.Config.HWType']);
  else requirePrivs(cluster, caller, path, ['VM.Config.Options']);
}

function checkTagAccess(cluster: Cluster, caller: Caller, before: string[], after: string[]): void {
  const changed = [...after.filter((t) => !before.includes(t)), ...before.filter((t) => !after.includes(t))];
  if (changed.length === 0 || hasPrivs(cluster, caller, '/', ['Sys.Modify'], false)) return;
  const o = cluster.opts;
  const existing = new Set([...cluster.vms.values()].flatMap((v) => tagSet(v.config.tags as string | undefined)));
  for (const tag of changed) {
    const allowed =
      !(o.registeredTags ?? []).includes(tag) &&
      (o.tagAccess === undefined || o.tagAccess === 'free' ||
        ((o.tagAccess === 'list' || o.tagAccess === 'existing') && (o.tagAllowList ?? []).includes(tag)) ||
        (o.tagAccess === 'existing' && existing.has(tag)));
    if (!allowed) throw permError(`/, Sys.Modify for modifying tag '${tag}'`);
  }
}

const SSH_KEY = /^(ssh-(rsa|dss|ed25519)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) [A-Za-z0-9+/]+={0,3}( .*)?$/;

function validateSshKeys(encoded: string): void {
  let text: string;
  try {
    text = decodeURIComponent(encoded);
  } catch {
    throw paramError({ sshkeys: `invalid format - invalid urlencoded string: ${encoded}` });
  }
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (l === '' || l.startsWith('#')) continue;
    if (!SSH_KEY.test(l)) throw fail('SSH public key validation error');
  }
}
