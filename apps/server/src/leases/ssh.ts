/**
 * The SSH client of `vmhub-server leases ssh`: ssh2 over a byte stream the provider opened to the
 * machine's sshd (Provider.connect: no port is published anywhere), logging in with the lease's
 * own key. The guest's host key (SHA-256, base64, as ssh2 hashes it) must equal the one pinned at
 * the lease's first connection; with none pinned yet, the caller pins the one seen here once the
 * login succeeded. A different key is POLICY_DENIED, and nothing is sent to that host.
 * Then one session on this terminal:
 *   a command — run without a pty (its argv quoted word by word for the guest's shell), its stdout
 *               and stderr passed through, stdin forwarded, its exit status returned;
 *   no command, stdin a TTY — an interactive shell under a pty: the local terminal in raw mode,
 *               its size sent at start and on every SIGWINCH (stdout's 'resize');
 *   no command, stdin not a TTY — a shell without a pty that reads stdin to its end.
 * `signal` ends the session from outside (the lease left ready): the connection is closed.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:os';
import type { Duplex } from 'node:stream';
import type { Client, ClientChannel } from 'ssh2';
import { VmhubError } from '@vmhub/core';

export type SshClient = Client;

/** SHA-256 of a host key blob, base64 (the form pinSshHostKey keeps). */
export function hostKeyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64');
}

/** As OpenSSH shows it: `SHA256:` and unpadded base64. */
export function shownFingerprint(fp: string): string {
  return `SHA256:${fp.replace(/=+$/, '')}`;
}

export interface SshLogin {
  sock: Duplex;
  user: string;
  privateKey: string;
  /** The pinned host key; undefined at the lease's first connection. */
  hostKey?: string;
  /** Names the machine in messages (`lease <id>`). */
  what: string;
}

/** Handshake and login; resolves the client and the host key it presented. */
export async function openSsh(login: SshLogin): Promise<{ client: SshClient; hostKey: string }> {
  // Loaded here, not at module load: the server's bundle keeps ssh2 external, and only this
  // command needs it (a server start must not depend on it).
  const { default: ssh2 } = await import('ssh2');
  const client = new ssh2.Client();
  let seen: string | undefined;
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      client.end();
      login.sock.destroy();
      if (seen !== undefined && login.hostKey !== undefined && seen !== login.hostKey) {
        reject(new VmhubError('POLICY_DENIED', `${login.what}: the machine's SSH host key changed: it presented ${shownFingerprint(seen)}, but ${shownFingerprint(login.hostKey)} was pinned at the lease's first connection; refusing to connect`, { hint: 'The machine is not the one first reached (replaced, or something is in between): release the lease and create a new one.' }));
      } else {
        reject(new VmhubError('CAPABILITY_UNAVAILABLE', `${login.what}: SSH login as ${login.user} failed: ${err.message}`, { retryable: true, hint: 'The machine\'s sshd may still be starting: run the command again in a few seconds.' }));
      }
    };
    client.once('error', onError);
    client.once('ready', () => {
      client.off('error', onError);
      client.on('error', () => { /* the session's end says what happened */ });
      resolve({ client, hostKey: seen! });
    });
    client.connect({
      sock: login.sock, username: login.user, privateKey: login.privateKey, readyTimeout: 20_000,
      keepaliveInterval: 15_000, keepaliveCountMax: 4,
      hostVerifier: (key: Buffer): boolean => {
        seen = hostKeyFingerprint(key);
        return login.hostKey === undefined || seen === login.hostKey;
      },
    });
  });
}

export interface Terminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/**
 * What ended the session: the remote side's exit status (128 + n for a signal), the connection
 * closing without one (`code` null: the machine went away), or `signal`.
 */
export type SessionEnd = { code: number | null } | { aborted: true };

/**
 * One session (see the header) on `term`; `command` is the remote command line, already quoted.
 * Resolves when the channel closes or `signal` aborts; the connection is ended either way.
 */
export function runSession(client: SshClient, command: string | undefined, term: Terminal, signal: AbortSignal): Promise<SessionEnd> {
  const tty = command === undefined && term.stdin.isTTY === true;
  return new Promise<SessionEnd>((resolve, reject) => {
    // Everything is wired in the callback itself: a short command's output, exit status and close
    // can arrive in the same read as the channel's opening, before any later tick.
    const wire = (err: Error | undefined, channel: ClientChannel): void => {
      if (err) return reject(err);
      let code: number | null = null;
      const onResize = (): void => { channel.setWindow(term.stdout.rows || 24, term.stdout.columns || 80, 0, 0); };
      const onAbort = (): void => finish({ aborted: true });
      const finish = (end: SessionEnd): void => {
        signal.removeEventListener('abort', onAbort);
        term.stdout.off('resize', onResize);
        term.stdin.unpipe(channel);
        if (tty) term.stdin.setRawMode(false);
        term.stdin.pause();
        client.end();
        resolve(end);
      };
      channel.on('exit', (status: number | null, name?: string) => {
        if (typeof status === 'number') code = status;
        else if (name) code = 128 + ((constants.signals as Record<string, number>)[name] ?? 0);
      });
      channel.on('close', () => finish({ code }));
      channel.pipe(term.stdout, { end: false });
      channel.stderr.pipe(term.stderr, { end: false });
      if (tty) {
        term.stdin.setRawMode(true);
        term.stdout.on('resize', onResize);
      }
      // stdin's end is the remote side's EOF (a shell reading a script ends with it).
      term.stdin.pipe(channel);
      term.stdin.resume();
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    };
    if (command !== undefined) client.exec(command, wire);
    else client.shell(tty ? { term: process.env.TERM || 'xterm-256color', rows: term.stdout.rows || 24, cols: term.stdout.columns || 80, height: 0, width: 0 } : false, wire);
  });
}
