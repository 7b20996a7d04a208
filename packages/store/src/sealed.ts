/**
 * Secrets at rest: what teardown must still undo after the process that made it is gone (a
 * lease's GitHub token, to revoke it) is kept in the store only sealed — AES-256-GCM under a key
 * in a file of the state directory (`secrets.key`, 0600, 32 random bytes, made on first use), so a
 * copy of the database alone reveals nothing. Every process of one instance (server, reaper,
 * `vmhub-server leases`) reads the same key file; a PostgreSQL store shared by hosts needs the same
 * key file on each (docs/security.md). Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts; the
 * record's own id is bound in as associated data, so a sealed value moved to another row fails.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const KEY_BYTES = 32;

export class SealError extends Error {
  override name = 'SealError';
}

export class Sealer {
  readonly keyFile: string | undefined;
  #key: Buffer | undefined;

  /** `keyFile`: where the key lives (made 0600 on first seal); undefined: a key in memory only (`:memory:` stores). */
  constructor(keyFile: string | undefined) {
    this.keyFile = keyFile;
  }

  /** The key, read once; sealing may make the file, opening never does (a missing key is an error). */
  #load(create: boolean): Buffer {
    return (this.#key ??= this.keyFile === undefined ? randomBytes(KEY_BYTES) : loadKey(this.keyFile, create));
  }

  seal(plain: string, recordId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#load(true), iv);
    cipher.setAAD(Buffer.from(recordId));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  open(sealed: string, recordId: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) throw new SealError('[vmhub] [store] a sealed secret is not in the v1 format');
    const key = this.#load(false);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(recordId));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch (err) {
      throw new SealError(`[vmhub] [store] a sealed secret does not open with ${this.keyFile ?? 'this process\'s key'}: the key file changed, or the row was altered`, { cause: err });
    }
  }
}

/** Read the key (refusing one others can read), or make it when `create` and absent. */
function loadKey(file: string, create: boolean): Buffer {
  try {
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0) throw new SealError(`[vmhub] [store] ${file} is readable by others (mode ${mode.toString(8)}): chmod 600 it`);
    const key = readFileSync(file);
    if (key.length !== KEY_BYTES) throw new SealError(`[vmhub] [store] ${file} holds ${key.length} bytes, not a ${KEY_BYTES}-byte key`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    if (!create) throw new SealError(`[vmhub] [store] ${file} is missing: the secrets sealed in this store were sealed with it (copy it from the host that made them)`);
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // Written whole under another name, then linked in: a racing process sees no key or all of it.
  const key = randomBytes(KEY_BYTES);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, key, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return loadKey(file, false);
  } finally {
    rmSync(tmp, { force: true });
  }
  return key;
}
