/**
 * Claims: which lease holds which device, as one file per device in the state directory
 * (`<state_dir>/claims/<device>.json`). A claim is taken with link(2) of a complete temporary
 * file onto that name — atomic, and it fails with EEXIST when the device is already claimed — so
 * two server processes (or a server and a reaper) sharing the directory never hand out one
 * device twice, and a reader never sees a half-written claim. The claim records the lease's
 * identity and the device's fingerprint; destroy() trusts neither the device name nor the
 * address alone.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Claim {
  identity: string;
  lease_id: string;
  device: string;
  address: string;
  claimed_at: number;
  /** The vmhub host and process that took it (for operators; never trusted). */
  holder: string;
  /** ro.serialno when claimed: destroy refuses to reset a device answering with another. */
  serial?: string;
  model?: string;
  /** Third-party packages installed when the lease began: release uninstalls the others. */
  baseline_packages?: string[];
  /** Set while create() is still probing the device. */
  claiming?: boolean;
}

export class Claims {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'claims');
  }

  #file(device: string): string {
    return join(this.dir, `${device}.json`);
  }

  #tmp(device: string, content: Claim): string {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = join(this.dir, `.${device}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    writeFileSync(tmp, JSON.stringify(content, null, 2) + '\n', { mode: 0o600 });
    return tmp;
  }

  /** Take the device for a lease; false when someone holds it already. */
  take(claim: Claim): boolean {
    const tmp = this.#tmp(claim.device, claim);
    try {
      linkSync(tmp, this.#file(claim.device));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      unlinkSync(tmp);
    }
  }

  /** Replace the claim's content (only its holder does this, after take()). */
  update(claim: Claim): void {
    renameSync(this.#tmp(claim.device, claim), this.#file(claim.device));
  }

  read(device: string): Claim | undefined {
    try {
      return JSON.parse(readFileSync(this.#file(device), 'utf8')) as Claim;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Drop the claim, but only if it still carries this identity (never another lease's). */
  release(device: string, identity: string): boolean {
    const c = this.read(device);
    if (!c || c.identity !== identity) return false;
    try {
      unlinkSync(this.#file(device));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return true;
  }

  all(): Claim[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return names.filter((n) => n.endsWith('.json') && !n.startsWith('.')).flatMap((n) => this.read(n.slice(0, -5)) ?? []);
  }
}
