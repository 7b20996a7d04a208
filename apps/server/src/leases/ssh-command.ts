/**
 * `vmhub-server leases ssh <lease-id> [--principal p] [-- command…]`: a person's shell (or one
 * command) on a lease's machine as its user, through this host (ssh.ts over Provider.connect, the
 * lease's own key, the host key pinned at the first connection).
 *   principal — the command acts as `--principal`, else the local OS user (the principal stdio
 *               clients' leases get, http/principal.ts); a lease of another principal is refused
 *               (POLICY_DENIED). Whoever runs this owns the store and the key files, so this guards
 *               against reaching someone else's lease by mistake; it is not a boundary against them.
 *   state     — only a ready lease that has not expired is entered; any other is refused with its
 *               state named (LEASE_NOT_READY while it is being made, LEASE_EXPIRED once it ended).
 *   lifetime  — the store is read every second; once the lease leaves ready (released, expired,
 *               failed, reaped) the connection is closed and the command fails naming the state.
 * The exit code is the remote command's (or shell's); errors are one typed line (leases-cli.ts).
 * The store is only read here: nothing is transitioned or torn down by this command.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { quoteArgv, VmhubError, type LeaseState } from '@vmhub/core';
import type { LeaseRow, Store } from '@vmhub/store';
import { localPrincipal } from '../http/principal.ts';
import type { Runtime } from '../runtime.ts';
import { openSsh, runSession, type Terminal } from './ssh.ts';
import { leaseSsh, type LeaseSsh } from './ssh-access.ts';
import { pastDue } from './view.ts';

/** How often the lease's state is read while a session is open. */
const WATCH_MS = 1000;
/** How long a refused connection (sshd still starting) is retried. */
const CONNECT_RETRY_MS = 10_000;

export interface SshOptions {
  principal?: string;
  /** The remote argv (after `--`); none: a shell. */
  command?: string[];
}

/** The lease's state as this command sees it: a ready lease past its expiry is expired (as LeaseManager.get has it). */
function stateOf(row: LeaseRow): LeaseState {
  if (row.status === 'ready' && pastDue(row)) return 'expired';
  return row.status as LeaseState;
}

function notEnterable(row: LeaseRow, state: LeaseState, after = false): VmhubError {
  if (!after && (state === 'provisioning' || state === 'starting')) {
    return new VmhubError('LEASE_NOT_READY', `lease ${row.id} is ${state}: its machine is not ready yet`, { hint: 'Wait until vm_lease_status says ready (vmhub-server leases show <id>), then run this again.' });
  }
  return new VmhubError('LEASE_EXPIRED', `lease ${row.id} is ${state}${after ? ': the session ended with it' : ': it has no machine to enter'}`);
}

async function connect(ssh: LeaseSsh, what: string): Promise<Awaited<ReturnType<typeof openSsh>>> {
  const { provider, machine, template, access } = ssh;
  if (!provider.connect) throw new VmhubError('CAPABILITY_UNAVAILABLE', `${what}: provider "${provider.id}" cannot open a stream into its machines`);
  const deadline = Date.now() + CONNECT_RETRY_MS;
  for (;;) {
    try {
      const sock = await provider.connect(machine, access.port, { template });
      return await openSsh({ sock, user: access.user, privateKey: access.privateKey, hostKey: access.hostKey, what });
    } catch (err) {
      // sshd may still be starting on a machine that has only just become ready.
      if (!(VmhubError.is(err) && err.code === 'CAPABILITY_UNAVAILABLE' && err.retryable) || Date.now() > deadline) throw err;
      await sleep(500);
    }
  }
}

/** Aborts when the lease stops being ready (or expires); `state()` then says what it became. */
function watchLease(store: Store, row: LeaseRow): { signal: AbortSignal; state: () => LeaseState; stop: () => void } {
  const ac = new AbortController();
  let state: LeaseState = 'ready';
  const timer = setInterval(() => {
    void store.getLease(row.id).then((now) => {
      state = now ? stateOf(now) : 'reaped';
      if (state !== 'ready') ac.abort();
    }, () => undefined); // a store that does not answer for a moment ends nothing
  }, WATCH_MS);
  return { signal: ac.signal, state: () => state, stop: () => clearInterval(timer) };
}

export async function sshCommand(rt: Runtime, leaseId: string, o: SshOptions, term: Terminal = process): Promise<number> {
  const principal = o.principal ?? localPrincipal();
  const row = await rt.store.getLease(leaseId);
  if (!row) throw new VmhubError('NOT_FOUND', `no lease "${leaseId}"`, { hint: 'vmhub-server leases list shows the open leases.' });
  if (row.principal !== principal) {
    throw new VmhubError('POLICY_DENIED', `lease ${row.id} belongs to principal "${row.principal ?? '-'}", not to "${principal}" (${o.principal ? '--principal' : 'the local OS user; --principal names another'})`);
  }
  const state = stateOf(row);
  if (state !== 'ready') throw notEnterable(row, state);
  const what = `lease ${row.id}`;
  const ssh = await leaseSsh(rt.store, rt.registry, row);
  if (!ssh) throw new VmhubError('CAPABILITY_UNAVAILABLE', `${what} (template ${row.template}, provider ${row.provider}) has no SSH access: its golden runs no sshd, or this host holds no key for it`);
  const { client, hostKey } = await connect(ssh, what);
  if (ssh.access.hostKey === undefined) await ssh.provider.pinSshHostKey?.(ssh.machine, hostKey);
  const watch = watchLease(rt.store, row);
  try {
    const end = await runSession(client, o.command ? quoteArgv(o.command) : undefined, term, watch.signal);
    if ('aborted' in end) throw notEnterable(row, watch.state(), true);
    if (end.code !== null) return end.code;
    // The connection closed without an exit status: the lease ending (its machine destroyed) says so.
    const now = await rt.store.getLease(row.id).catch(() => row);
    const after = now ? stateOf(now) : 'reaped';
    if (after !== 'ready') throw notEnterable(row, after, true);
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `${what}: the SSH connection closed without an exit status`, { retryable: true });
  } finally {
    watch.stop();
  }
}
