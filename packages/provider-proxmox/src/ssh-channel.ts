/**
 * GuestChannel over SSH (ssh2) with the lease's own key: one connection per channel, many exec
 * channels on it, reconnected lazily if it drops. Optionally through a jump host. The guest's host
 * key is new for every clone, so it is pinned on first use for the life of the lease (TOFU): the
 * caller passes the pin a previous channel of the lease learnt, and is told the one this learns.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import ssh2, { type ClientChannel, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { CappedOutput, VmhubError, type ExecOptions, type ExecResult, type GetFileOptions, type GuestChannel, type PutFileOptions } from '@vmhub/core';
import { SOURCE } from './pve-errors.ts';
import { killedResult } from './exec-result.ts';
import { errnoFromText, fsError, PUT_FILE_SH, putTempPath, type FsErrorContext } from '@vmhub/core';
import { buildRemoteCommand, quoteArgv } from './shell-quote.ts';

const { Client } = ssh2;
type SshClient = InstanceType<typeof Client>;

export interface SshTarget {
  host: string;
  port: number;
  user: string;
  privateKey: string;
  jump?: { host: string; port: number; user: string; private_key_path: string };
  /** ms to wait for the SSH handshake. Default 10000. */
  readyTimeoutMs?: number;
  /** Default cap for getFile. Default 64 MiB. */
  maxFileBytes?: number;
  /** SHA-256 (base64) the guest's host key must have; unset: trust the first one seen. */
  hostKey?: string;
  /** Called once with the host key fingerprint this channel pinned (when `hostKey` was unset). */
  onHostKey?: (fingerprint: string) => void;
}

const DEFAULT_TIMEOUT = 30_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
/**
 * Every remote command first writes its shell's pid as one line on stderr (stripped again here).
 * sshd made that shell a session and process-group leader and the command keeps its pid (exec), so
 * a cancelled or timed-out command can be killed with its whole group.
 */
const PID_LINE = `printf '%s\\n' "$$" >&2; `;
/** How long a kill waits for the pid line of a command that has only just started. */
const PID_WAIT_MS = 2000;
/** Bound for the second exec that kills a cancelled command. */
const KILL_WAIT_MS = 3000;


interface RunOptions {
  stdin?: Buffer | string | Readable;
  timeoutMs: number;
  maxOutput: number;
  signal?: AbortSignal;
  /** The command runs through sudo as another user. */
  sudo: boolean;
}

function connect(config: ConnectConfig): Promise<SshClient> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    const onError = (err: Error): void => {
      client.end();
      reject(err);
    };
    client.once('error', onError);
    client.once('ready', () => {
      client.off('error', onError);
      client.on('error', () => { /* surfaced by the next call */ });
      resolve(client);
    });
    client.connect(config);
  });
}

export class SshChannel implements GuestChannel {
  readonly #target: SshTarget;
  #client: SshClient | undefined;
  #jump: SshClient | undefined;
  #connecting: Promise<SshClient> | undefined;
  #sftp: Promise<SFTPWrapper> | undefined;
  #hostKey: string | undefined;
  #home: string | undefined;
  #closed = false;

  constructor(target: SshTarget) {
    this.#target = target;
    this.#hostKey = target.hostKey;
  }

  get home(): string | undefined {
    return this.#home;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Connect (or reuse the connection) and learn $HOME. */
  async open(): Promise<void> {
    await this.#conn();
    if (this.#home === undefined) {
      const r = await this.exec(['sh', '-c', 'printf %s "$HOME"'], { timeoutMs: 10_000 });
      if (r.exit_code === 0 && r.stdout.length > 0) this.#home = r.stdout.toString();
    }
  }

  #conn(): Promise<SshClient> {
    if (this.#closed) return Promise.reject(new VmhubError('LEASE_NOT_READY', `[vmhub] [${SOURCE}] SSH channel to ${this.#target.host} is closed`, { source: SOURCE }));
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= this.#dial().catch((err: Error) => {
      const t = this.#target;
      throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] SSH to ${t.user}@${t.host}:${t.port}${t.jump ? ` via ${t.jump.host}` : ''} failed: ${err.message}: check the guest's sshd, its address and that cloud-init installed the lease key`, { source: SOURCE, cause: err });
    }).finally(() => { this.#connecting = undefined; });
    return this.#connecting;
  }

  async #dial(): Promise<SshClient> {
    const t = this.#target;
    const readyTimeout = t.readyTimeoutMs ?? 10_000;
    let sock: ConnectConfig['sock'];
    if (t.jump) {
      const jumpKey = readFileSync(t.jump.private_key_path, 'utf8');
      this.#jump = await connect({ host: t.jump.host, port: t.jump.port, username: t.jump.user, privateKey: jumpKey, readyTimeout });
      sock = await new Promise((resolve, reject) => {
        (this.#jump as SshClient).forwardOut('127.0.0.1', 0, t.host, t.port, (err, stream) => (err ? reject(err) : resolve(stream)));
      });
    }
    const client = await connect({
      host: t.host, port: t.port, username: t.user, privateKey: t.privateKey, readyTimeout, sock,
      keepaliveInterval: 15_000, keepaliveCountMax: 4,
      hostVerifier: (key: Buffer): boolean => {
        const fp = createHash('sha256').update(key).digest('base64');
        if (this.#hostKey === undefined) {
          this.#hostKey = fp;
          t.onHostKey?.(fp);
        }
        return this.#hostKey === fp;
      },
    });
    const drop = (): void => {
      if (this.#client === client) {
        this.#client = undefined;
        this.#sftp = undefined;
      }
    };
    client.on('close', drop);
    client.on('end', drop);
    this.#client = client;
    return client;
  }

  /** Opens an exec channel; undefined when `signal` aborted first (the command never started). */
  async #openExec(command: string, signal?: AbortSignal): Promise<ClientChannel | undefined> {
    let client = await this.#conn();
    if (signal?.aborted) return undefined;
    try {
      return await new Promise<ClientChannel>((resolve, reject) => client.exec(command, (err, stream) => (err ? reject(err) : resolve(stream))));
    } catch {
      // A dead connection: dial once more, then give up.
      client.end();
      this.#client = undefined;
      client = await this.#conn();
      if (signal?.aborted) return undefined;
      return new Promise<ClientChannel>((resolve, reject) => client.exec(command, (err, stream) => (err ? reject(err) : resolve(stream))));
    }
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const sudoUser = options.user && options.user !== this.#target.user ? options.user : undefined;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT;
    // The guest kills the process a second after we stop waiting for it.
    const command = buildRemoteCommand(argv, { cwd: options.cwd, env: options.env, sudoUser, killAfterSeconds: timeoutMs / 1000 + 1 });
    return this.#run(command, { stdin: options.stdin, timeoutMs, maxOutput: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT, signal: options.signal, sudo: sudoUser !== undefined });
  }

  async #run(command: string, o: RunOptions): Promise<ExecResult> {
    const { stdin, timeoutMs, maxOutput, signal } = o;
    // Already cancelled: the command never starts.
    if (signal?.aborted) return killedResult();
    const stream = await this.#openExec(PID_LINE + command, signal);
    if (!stream) return killedResult();
    return new Promise<ExecResult>((resolve) => {
      const out = new CappedOutput(maxOutput);
      const err = new CappedOutput(maxOutput);
      let timedOut = false;
      let settled = false;
      let pgid: number | undefined;
      /** stderr until the pid line is parsed; undefined afterwards. */
      let head: Buffer | undefined = Buffer.alloc(0);
      let onPid: (() => void) | undefined;
      const flushHead = (): void => {
        if (head !== undefined && head.length > 0) err.push(head);
        head = undefined;
      };
      stream.on('data', (d: Buffer) => { out.push(d); });
      stream.stderr.on('data', (d: Buffer) => {
        if (head === undefined) { err.push(d); return; }
        head = Buffer.concat([head, d]);
        const nl = head.indexOf(10);
        if (nl < 0 && head.length < 32) return;
        const line = nl < 0 ? '' : head.subarray(0, nl).toString('latin1');
        if (/^[0-9]{1,10}$/.test(line)) {
          pgid = Number(line);
          head = head.subarray(nl + 1);
        }
        flushHead();
        onPid?.();
      });
      const finish = (code: number | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', kill);
        flushHead();
        onPid?.();
        resolve({ exit_code: timedOut ? null : code, stdout: out.toBuffer(), stderr: err.toBuffer(), timed_out: timedOut, truncated: out.truncated || err.truncated });
      };
      stream.on('exit', (code: number | null) => { if (typeof code === 'number') exitCode = code; });
      let exitCode: number | null = null;
      stream.on('close', (code?: number | null) => finish(typeof code === 'number' ? code : exitCode));
      // Timeout and cancellation end the same way. OpenSSH honours the signal request only for
      // non-root logins, and closing the channel does not stop a process that neither reads nor
      // writes, so a second exec also kills the command's process group.
      const kill = (): void => {
        if (settled || timedOut) return;
        timedOut = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', kill);
        try { stream.signal('KILL'); } catch { /* not every sshd honours signals */ }
        void (async () => {
          if (pgid === undefined && head !== undefined) {
            await new Promise<void>((res) => { onPid = res; setTimeout(res, PID_WAIT_MS).unref(); });
          }
          if (pgid !== undefined && !settled) await this.#killGroup(pgid, o.sudo);
          stream.close();
          setTimeout(() => finish(null), 500).unref();
        })();
      };
      const timer = setTimeout(kill, timeoutMs);
      signal?.addEventListener('abort', kill, { once: true });
      if (signal?.aborted) kill();
      stream.on('error', () => finish(null));
      if (stdin === undefined) stream.end();
      else if (typeof stdin === 'string' || Buffer.isBuffer(stdin)) stream.end(stdin);
      else stdin.pipe(stream);
    });
  }

  /** SIGKILL the process group a cancelled command leads (its pid if it leads none). Best effort, bounded. */
  async #killGroup(pgid: number, sudo: boolean): Promise<void> {
    // 0 and 1 would mean "my group" and "every process I may signal": never send those.
    if (!Number.isSafeInteger(pgid) || pgid < 2) return;
    const plain = `kill -KILL -${pgid} 2>/dev/null || kill -KILL ${pgid}`;
    // A command run through sudo belongs to another user: signal it as root when sudo allows.
    const command = sudo ? `sudo -n kill -KILL -${pgid} 2>/dev/null || ${plain}` : plain;
    try {
      const stream = await this.#openExec(command);
      if (!stream) return;
      await new Promise<void>((res) => {
        const timer = setTimeout(() => { stream.close(); res(); }, KILL_WAIT_MS);
        stream.on('close', () => { clearTimeout(timer); res(); });
        stream.on('error', () => { clearTimeout(timer); res(); });
        stream.resume();
        stream.stderr.resume();
        stream.end();
      });
    } catch { /* the connection is gone: so is the session, and with it the command's pipes */ }
  }

  #sftpSession(): Promise<SFTPWrapper> {
    this.#sftp ??= this.#conn().then((client) => new Promise<SFTPWrapper>((resolve, reject) => client.sftp((err, sftp) => (err ? reject(err) : resolve(sftp)))));
    this.#sftp.catch(() => { this.#sftp = undefined; });
    return this.#sftp;
  }

  /**
   * Write with the login (desktop) user's rights — or, for another user, with that user's through
   * `sudo -n -u` — by a shell writer in the guest, so the file is never written by one user and
   * given to another. Atomic (GuestChannel.putFile, core's PUT_FILE_SH): the bytes go to a
   * temporary sibling renamed over the file only when all of them arrived, so a connection (or a
   * server) lost mid-write leaves the file as it was. The shell names the errno of a failure.
   */
  async putFile(path: string, data: Buffer, options: PutFileOptions = {}): Promise<void> {
    const other = options.user && options.user !== this.#target.user ? options.user : undefined;
    const c: Omit<FsErrorContext, 'source'> = { op: 'write', path, user: other ?? this.#target.user };
    preflight(c);
    const mode = options.mode === undefined ? '' : (options.mode & 0o7777).toString(8);
    const r = await this.exec(['sh', '-c', PUT_FILE_SH, 'sh', path, putTempPath(path), mode, String(data.length)], { user: other, stdin: data, timeoutMs: 60_000 + Math.ceil(data.length / 1048576) * 1000 });
    if (r.exit_code !== 0) throw shellFailure(r.stderr.toString(), r.exit_code, c, r.timed_out);
  }

  async getFile(path: string, options: GetFileOptions = {}): Promise<Buffer> {
    const max = options.maxBytes ?? this.#target.maxFileBytes ?? 64 * 1024 * 1024;
    const c: Omit<FsErrorContext, 'source'> = { op: 'read', path, user: this.#target.user };
    preflight(c);
    const sftp = await this.#sftpSession();
    const fail = async (err: Error & { code?: number | string }): Promise<VmhubError> => {
      if (err.code === 3) return sftpError(err, c);
      // Ask the shell what opening the file as the user says.
      // `head -c 0` opens the file as the user and reads nothing: coreutils' message names the errno.
      const r = await this.exec(['head', '-c', '0', '--', path], { timeoutMs: 15_000 }).catch(() => undefined);
      if (r && r.exit_code !== 0) {
        const typed = shellFailure(r.stderr.toString(), r.exit_code, c, r.timed_out);
        if (typed.code !== 'INTERNAL') return typed;
      }
      return sftpError(err, c);
    };
    let st: { size: number; isFile(): boolean; isDirectory(): boolean };
    try {
      st = await new Promise((resolve, reject) => sftp.stat(path, (err, s) => (err ? reject(err) : resolve(s))));
    } catch (err) {
      throw await fail(err as Error);
    }
    if (st.isDirectory()) throw fsError('EISDIR', { ...c, source: SOURCE })!;
    if (!st.isFile()) throw fsError('ENOTREG', { ...c, source: SOURCE })!;
    if (st.size > max) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is ${st.size} bytes, over the ${max}-byte cap: raise max_bytes or fetch a smaller file`, { source: SOURCE, details: { size: st.size, max_bytes: max } });
    try {
      return await new Promise<Buffer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        let len = 0;
        const rs = sftp.createReadStream(path);
        rs.on('data', (d: Buffer) => {
          len += d.length;
          if (len > max) { rs.destroy(); reject(new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} grew over the ${max}-byte cap while reading`, { source: SOURCE })); return; }
          chunks.push(d);
        });
        rs.on('error', reject);
        rs.on('end', () => resolve(Buffer.concat(chunks)));
      });
    } catch (err) {
      throw VmhubError.is(err) ? err : await fail(err as Error);
    }
  }

  async putArchive(dir: string, tar: Readable, options: { user?: string } = {}): Promise<void> {
    const sudo = options.user && options.user !== this.#target.user ? ['sudo', '-n', '-u', options.user, '--'] : [];
    const command = `${quoteArgv([...sudo, 'mkdir', '-p', '--', dir])} && exec ${quoteArgv([...sudo, 'tar', '-x', '-C', dir])}`;
    const r = await this.#run(command, { stdin: tar, timeoutMs: 10 * 60_000, maxOutput: 64 * 1024, sudo: sudo.length > 0 });
    if (r.exit_code !== 0) {
      const typed = shellFailure(r.stderr.toString(), r.exit_code, { op: 'unpack', path: dir, user: options.user ?? this.#target.user }, r.timed_out);
      if (typed.code !== 'INTERNAL') throw typed;
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] unpacking the archive into ${dir} failed (exit ${r.exit_code}${r.timed_out ? ', timed out' : ''}): ${r.stderr.toString().trim().slice(0, 500)}`, { source: SOURCE });
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#client?.end();
    this.#jump?.end();
    this.#client = undefined;
    this.#jump = undefined;
    this.#sftp = undefined;
  }
}


/** A name over the kernel's 255-byte limit fails in every guest: refused before any round trip. */
function preflight(c: Omit<FsErrorContext, 'source'>): void {
  if (c.path.split('/').some((p) => Buffer.byteLength(p) > 255)) throw fsError('ENAMETOOLONG', { ...c, source: SOURCE })!;
}

/** A failed shell file command, typed by the errno its message names. */
function shellFailure(stderr: string, exit: number | null, c: Omit<FsErrorContext, 'source'>, timedOut: boolean): VmhubError {
  if (timedOut) return new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] ${c.op === 'read' ? 'reading' : 'writing'} ${c.path} in the guest did not finish in time`, { source: SOURCE });
  const errno = errnoFromText(stderr);
  const typed = errno ? fsError(errno, { ...c, source: SOURCE }) : undefined;
  if (typed) return typed;
  if (/sudo: .*password|sudo: a terminal|not in the sudoers|may not run sudo/i.test(stderr)) {
    return new VmhubError('POLICY_DENIED', `[vmhub] [${SOURCE}] cannot ${c.op} ${c.path} as ${c.user}: the login user may not sudo to that user without a password (${stderr.trim().slice(0, 200)})`, { source: SOURCE });
  }
  return new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] cannot ${c.op} ${c.path} as ${c.user} (exit ${exit}): ${stderr.trim().slice(0, 300)}`, { source: SOURCE });
}

/** SFTP status codes (draft-ietf-secsh-filexfer-02): 2 no such file, 3 permission denied, 4 failure. */
export function sftpError(err: Error & { code?: number | string }, c: Omit<FsErrorContext, 'source'>): VmhubError {
  if (err.code === 2 || err.code === 'ENOENT') return fsError('ENOENT', { ...c, source: SOURCE })!;
  if (err.code === 3 || err.code === 'EACCES') return fsError('EACCES', { ...c, source: SOURCE })!;
  return new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] SFTP ${c.op} of ${c.path} failed: ${err.message}`, { source: SOURCE });
}
