/**
 * How many TCP connections this process holds open to a port (a test sshd): read from
 * /proc/net/tcp{,6} and kept to the sockets among this process's own file descriptors, so
 * another test file's connections never count. A closed channel's socket leaves ESTABLISHED
 * a moment after close(), hence settle().
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function ownSocketInodes(): Set<string> {
  const out = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) out.add(m[1]!);
    } catch { /* closed meanwhile */ }
  }
  return out;
}

/** ESTABLISHED connections from this process to `port`. */
export function openConnections(port: number): number {
  const mine = ownSocketInodes();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try { text = readFileSync(table, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const [, , remote, state, , , , , , inode] = f;
      if (state === '01' && remote!.endsWith(`:${hexPort}`) && mine.has(inode!)) n++;
    }
  }
  return n;
}

/** The count once it reaches `want` (or what it is after `ms`). */
export async function settle(port: number, want: number, ms = 3000): Promise<number> {
  const until = Date.now() + ms;
  let n = openConnections(port);
  while (n !== want && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    n = openConnections(port);
  }
  return n;
}
