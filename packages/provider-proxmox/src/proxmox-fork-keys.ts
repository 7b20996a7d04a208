/**
 * A fork's SSH keys (readiness stage `keys`). A fork (create with `from_snapshot`, or a restore
 * onto another machine) is a full clone of a snapshot's disk, so the cloud-init user's
 * `~/.ssh/authorized_keys` still holds the SOURCE lease's public key: cloud-init adds the fork's
 * key and leaves the old one. Before the fork is ready (before any SSH), that file is replaced,
 * through the guest agent, with exactly the fork's own public key — or emptied when this host
 * holds no key for the lease — and `authorized_keys2` (also read by OpenSSH's default
 * AuthorizedKeysFile) removed. Everything runs as the cloud-init user (runuser), so a symlink the
 * source left in its home cannot aim a root write elsewhere: `~/.ssh` made or kept mode 0700,
 * then the file written atomically (temp + rename) mode 0600, owned by that user. The home is
 * cloud-init's default for its user, /home/USER (/root for root). Any failure is
 * PROVISION_FAILED naming the VM: the fork must not become ready with the source key authorized.
 * adb templates (no sshd, no per-lease key) skip it.
 */
import { VmhubError, type MachineRef, type TemplateConfig } from '@vmhub/core';
import { AgentChannel } from './agent-channel.ts';
import { releaseOf } from './cluster.ts';
import { SOURCE } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { templateOptions } from './template-options.ts';

/** The line create writes into a fork's description (and details.forked_from in its MachineRef). */
const FORK_LINE = /^from snapshot: (\S+)$/m;

/** The snapshot a machine was forked from: its MachineRef's mark, else its VM's description. */
export function forkedFrom(machine: MachineRef, config: Record<string, unknown> | undefined): string | undefined {
  const mark = machine.details?.forked_from;
  if (typeof mark === 'string' && mark) return mark;
  const desc = config?.description;
  return typeof desc === 'string' ? FORK_LINE.exec(desc)?.[1] : undefined;
}

/** The cloud-init user's home, as cloud-init makes it by default. */
export function ciHome(user: string): string {
  return user === 'root' ? '/root' : `/home/${user}`;
}

/** As the user: `~/.ssh` exists, is theirs' and 0700; `authorized_keys2` is gone. */
const SSH_DIR_SH = 'mkdir -p -m 700 -- "$1" && chmod 700 "$1" && rm -f -- "$1/authorized_keys2"';

/**
 * Replace the fork's authorized_keys with the lease's own key. Returns the stage detail, or
 * undefined when the template has no per-lease SSH key (adb).
 */
export async function replaceForkKeys(rt: Runtime, machine: MachineRef, template: TemplateConfig, source: string): Promise<string | undefined> {
  const t = templateOptions(template);
  if (t.channel === 'adb') return undefined;
  const vm = rt.vm(machine);
  const user = t.ciuser ?? rt.options.ciuser;
  const dir = `${ciHome(user)}/.ssh`;
  const keys = rt.secrets.get(machine.identity);
  const content = keys ? `${keys.publicKey.trim()}\n` : '';
  const fail = (why: string): VmhubError => new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] VM ${vm.vmid} (a fork of snapshot ${source}) could not have its ${dir}/authorized_keys replaced with the lease's own key, so the source lease's key may still open it: ${why.replace(/^\[vmhub\] \[[^\]]+\] /, '')}`, { source: SOURCE, details: { vmid: vm.vmid, node: vm.node, stage: 'keys', forked_from: source } });
  const release = await releaseOf(vm.client).catch(() => 0);
  const ch = new AgentChannel({ client: vm.client, node: vm.node, vmid: vm.vmid, release, user });
  try {
    const r = await ch.exec(['sh', '-c', SSH_DIR_SH, 'sh', dir], { user, timeoutMs: 30_000 });
    if (r.exit_code !== 0) throw fail(`preparing ${dir} as ${user} exited ${r.exit_code}${r.timed_out ? ' (timed out)' : ''}: ${r.stderr.toString().trim().slice(0, 300)}`);
    await ch.putFile(`${dir}/authorized_keys`, Buffer.from(content), { user, mode: 0o600 });
  } catch (err) {
    if (VmhubError.is(err) && err.code === 'PROVISION_FAILED') throw err;
    throw fail(err instanceof Error ? err.message : String(err));
  } finally {
    await ch.close();
  }
  if (!keys) rt.context.log('warn', 'no SSH key known for this fork: its authorized_keys was emptied', { identity: machine.identity, vmid: vm.vmid });
  return keys ? `${dir}/authorized_keys holds only the lease's key` : `${dir}/authorized_keys emptied (no key held for this lease)`;
}
