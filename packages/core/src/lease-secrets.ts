/**
 * Per-lease secrets (the private SSH key, and the guest host key pinned at the first connection)
 * live in this process's memory and, when a directory is given (a provider's
 * `<state dir>/<provider>/keys`), in one 0600 file per lease so a restarted server, the reaper and
 * `vmhub-server leases ssh` can still reach its machines. They are dropped at teardown and never logged
 * or put in MachineRef details.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LeaseKeyPair } from './lease-keys.ts';
import type { SshAccess } from './provider.ts';

export class LeaseSecrets {
  readonly #memory = new Map<string, LeaseKeyPair>();
  readonly #dir: string | undefined;

  /** `dir`: where the 0600 files go (created 0700); none keeps the keys in memory only. */
  constructor(dir?: string) {
    this.#dir = dir;
  }

  /**
   * A provider's keys under a state directory, `<stateDir>/<provider>/keys` (ProviderContext.stateDir:
   * the server, the reaper and `vmhub-server leases` give the same one); in memory only without one.
   */
  static forProvider(provider: string, stateDir: string | undefined): LeaseSecrets {
    return new LeaseSecrets(stateDir === undefined ? undefined : join(stateDir, provider, 'keys'));
  }

  /**
   * Provider.sshAccess from the key held for the lease: `user` and `port` are the guest's (the
   * provider knows them from the template or machine); the pinned host key when there is one.
   * Undefined when this host holds no key for the lease.
   */
  sshAccess(identity: string, guest: { user: string; port: number }): SshAccess | undefined {
    const keys = this.get(identity);
    if (!keys) return undefined;
    return { user: guest.user, privateKey: keys.privateKey, port: guest.port, ...(keys.hostKey ? { hostKey: keys.hostKey } : {}) };
  }

  #file(identity: string): string | undefined {
    return this.#dir ? join(this.#dir, `${identity.replace(/[^A-Za-z0-9._-]/g, '_')}.json`) : undefined;
  }

  put(identity: string, keys: LeaseKeyPair): void {
    this.#memory.set(identity, keys);
    this.#write(identity, keys);
  }

  /** Remember the guest's host key for the lease (first pin wins; later channels must match it). */
  pinHostKey(identity: string, fingerprint: string): void {
    const keys = this.get(identity);
    if (!keys || keys.hostKey !== undefined) return;
    this.put(identity, { ...keys, hostKey: fingerprint });
  }

  #write(identity: string, keys: LeaseKeyPair): void {
    const file = this.#file(identity);
    if (file && this.#dir) {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
    }
  }

  get(identity: string): LeaseKeyPair | undefined {
    const hit = this.#memory.get(identity);
    if (hit) return hit;
    const file = this.#file(identity);
    if (!file) return undefined;
    try {
      const keys = JSON.parse(readFileSync(file, 'utf8')) as LeaseKeyPair;
      this.#memory.set(identity, keys);
      return keys;
    } catch {
      return undefined;
    }
  }

  drop(identity: string): void {
    this.#memory.delete(identity);
    const file = this.#file(identity);
    if (file) rmSync(file, { force: true });
  }

  get size(): number {
    return this.#memory.size;
  }
}
