import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { PUT_COMMIT_SH, PUT_CREATE_SH, VmhubError } from '@vmhub/core';
import { createQgaChannel } from './qemu-channel.ts';
import { fakeSocketServer } from '../test/fake-qemu.ts';

test('qemu: guest-agent channel runs exec with stdin and cwd, moves files in chunks', async (t) => {
  const files = new Map<string, Buffer>();
  const modes = new Map<string, string>();
  const handles = new Map<number, { path: string; pos: number }>();
  const execs = new Map<number, { polls: number; out: Buffer; err: string; code: number }>();
  const calls: { execute: string; arguments?: Record<string, unknown> }[] = [];
  let next = 1000;
  const fake = await fakeSocketServer('qga', (msg) => {
    calls.push(msg);
    const a = msg.arguments ?? {};
    switch (msg.execute) {
      case 'guest-sync': return { return: a.id };
      case 'guest-exec': {
        const pid = next++;
        const stdin = a['input-data'] ? Buffer.from(a['input-data'] as string, 'base64') : Buffer.alloc(0);
        const args = a.arg as string[];
        if (a.path === 'stat') {
          // getFile asks for the type and size first (as the user).
          const f = files.get(args.at(-1)!);
          execs.set(pid, { polls: 0, out: Buffer.from(f ? `regular file ${f.length}\n` : ''), err: f ? '' : `stat: can't stat '${args.at(-1)}': No such file or directory\n`, code: f ? 0 : 1 });
          return { return: { pid } };
        }
        if (a.path === '/bin/sh' && args[1] === PUT_COMMIT_SH) {
          // The atomic put's commit: the temporary sibling renamed over the path when whole, mode applied.
          const [tmp, path, mode, size] = args.slice(3) as [string, string, string, string];
          const data = files.get(tmp);
          const fail = !data || data.length !== Number(size) ? `vmhub-file: EIO read got ${data?.length ?? 0} of ${size} bytes\n` : mode && path.startsWith('/ro/') ? `chmod: changing permissions of '${tmp}': Operation not permitted\n` : '';
          if (!fail) { files.set(path, data!); files.delete(tmp); if (mode) modes.set(path, mode); }
          execs.set(pid, { polls: 0, out: Buffer.alloc(0), err: fail, code: fail ? 3 : 0 });
          return { return: { pid } };
        }
        if (a.path === '/bin/rm') files.delete(args.at(-1)!);
        execs.set(pid, { polls: 0, out: Buffer.concat([Buffer.from(`${a.path} ${args.join(' ')}|`), stdin]), err: '', code: a.path === '/bin/sh' ? 3 : 0 });
        return { return: { pid } };
      }
      case 'guest-exec-status': {
        const e = execs.get(a.pid as number)!;
        if (e.polls++ < 2) return { return: { exited: false } };
        execs.delete(a.pid as number);
        return { return: { exited: true, exitcode: e.code, 'out-data': e.out.toString('base64'), 'err-data': Buffer.from(e.err).toString('base64') } };
      }
      case 'guest-file-open': {
        if (a.mode === 'r' && !files.has(a.path as string)) return { error: { class: 'GenericError', desc: `failed to open file '${a.path}' (mode: 'r'): No such file or directory` } };
        if (a.mode === 'w') files.set(a.path as string, Buffer.alloc(0));
        const h = next++;
        handles.set(h, { path: a.path as string, pos: 0 });
        return { return: h };
      }
      case 'guest-file-write': {
        const h = handles.get(a.handle as number)!;
        files.set(h.path, Buffer.concat([files.get(h.path)!, Buffer.from(a['buf-b64'] as string, 'base64')]));
        return { return: { count: 1, eof: false } };
      }
      case 'guest-file-read': {
        const h = handles.get(a.handle as number)!;
        const data = files.get(h.path)!.subarray(h.pos, h.pos + (a.count as number));
        h.pos += data.length;
        return { return: { count: data.length, 'buf-b64': data.toString('base64'), eof: h.pos >= files.get(h.path)!.length } };
      }
      case 'guest-file-close': handles.delete(a.handle as number); return { return: {} };
      default: return { error: { class: 'CommandNotFound', desc: msg.execute } };
    }
  });
  t.after(() => fake.close());
  const ch = createQgaChannel({ socketPath: fake.path, label: 'test', timeoutMs: 2000 });
  t.after(() => ch.close());

  const r = await ch.exec(['/bin/cat', '-'], { stdin: 'hello', cwd: '/tmp/x' });
  assert.equal(r.exit_code, 3);
  assert.equal(r.stdout.toString(), '/bin/sh -c cd -- "$1" && shift && exec "$@" sh /tmp/x /bin/cat -|hello');
  assert.equal(r.timed_out, false);

  const big = Buffer.alloc(2.5 * 1024 * 1024, 7);
  await ch.putFile('/data/big.bin', big);
  assert.equal(calls.filter((c) => c.execute === 'guest-file-write').length, 3, '1 MiB chunks');
  assert.ok(calls.some((c) => c.execute === 'guest-exec' && c.arguments!.path === '/bin/mkdir'));
  assert.ok(files.get('/data/big.bin')!.equals(big));
  const temporaries = () => [...files.keys()].filter((k) => k.includes('.vmhub-'));
  assert.deepEqual(temporaries(), [], 'written to a temporary sibling, renamed over the path');
  assert.ok(calls.some((c) => c.execute === 'guest-file-open' && /^\/data\/\.big\.bin\.vmhub-/.test(c.arguments!.path as string)), 'the agent wrote the temporary, not the path');
  assert.ok((await ch.getFile('/data/big.bin')).equals(big));
  await assert.rejects(ch.getFile('/data/big.bin', { maxBytes: 1000 }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
  await assert.rejects(ch.getFile('/nope'), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND');
  assert.equal(handles.size, 0, 'every handle closed');

  await ch.putFile('/data/empty', Buffer.alloc(0), { mode: 0o755 });
  assert.equal(files.get('/data/empty')!.length, 0, 'an empty file is created');
  assert.equal(modes.get('/data/empty'), '755', 'the mode is applied to the temporary before the rename');
  await assert.rejects(ch.putFile('/ro/f', Buffer.from('x'), { mode: 0o600 }), (e: unknown) => VmhubError.is(e) && /\/ro\/f/.test(e.message));
  assert.equal(files.has('/ro/f'), false, 'a failed commit leaves the path as it was');
  assert.deepEqual(temporaries(), [], 'and removes its temporary');
  assert.equal(handles.size, 0, 'every handle closed');

  await ch.exec(['env'], { env: { A: '1' } });
  const envCall = calls.filter((c) => c.execute === 'guest-exec').at(-1)!;
  assert.deepEqual(envCall.arguments!.env, ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'A=1']);
  // Another user: the agent (root) switches inside the guest, runuser or su; never silently as root.
  await ch.exec(['id'], { user: 'alice', cwd: '/tmp' });
  const asAlice = calls.filter((c) => c.execute === 'guest-exec').at(-1)!;
  assert.equal(asAlice.arguments!.path, '/bin/sh');
  assert.deepEqual((asAlice.arguments!.arg as string[]).slice(2), ['alice', '/bin/sh', '-c', 'cd -- "$1" && shift && exec "$@"', 'sh', '/tmp', 'id'], 'the user switch wraps the cd: the cd runs as the user');
  assert.match((asAlice.arguments!.arg as string[])[1]!, /exec runuser -u "\$0" -- "\$@".*exec su -s \/bin\/sh/);
  // A file for another user is written by that user's own shell, data on its stdin (no file API as root).
  const fileApi = calls.filter((c) => c.execute.startsWith('guest-file')).length;
  await assert.rejects(ch.putFile('/home/alice/f', Buffer.from('data'), { user: 'alice' }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST', 'the fake agent fails every /bin/sh with exit 3');
  const write = calls.filter((c) => c.execute === 'guest-exec' && (c.arguments!.arg as string[]).includes(PUT_CREATE_SH)).at(-1)!;
  assert.deepEqual((calls.filter((c) => c.execute === 'guest-exec').at(-1)!.arguments!.arg as string[]).slice(2, 5), ['alice', '/bin/rm', '-f'], 'the failed write removes its temporary, as the user');
  const userArgv = (write.arguments!.arg as string[]).slice(2);
  assert.deepEqual(userArgv.slice(0, 6), ['alice', '/bin/sh', '-c', PUT_CREATE_SH, 'sh', '/home/alice/f']);
  assert.match(userArgv[6]!, /^\/home\/alice\/\.f\.vmhub-/, 'the user\'s shell writes the temporary sibling');
  assert.equal(Buffer.from(write.arguments!['input-data'] as string, 'base64').toString(), 'data');
  assert.equal(calls.filter((c) => c.execute.startsWith('guest-file')).length, fileApi);
  // A name over 255 bytes never reaches the agent.
  const sent = calls.length;
  await assert.rejects(ch.putFile(`/data/${'n'.repeat(256)}`, Buffer.from('x')), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /longer than 255 bytes/.test(e.message));
  assert.equal(calls.length, sent);
});

test('qemu: guest-agent channel exec honours an abort signal: polling stops, the pid is killed', async (t) => {
  // A fake agent whose processes run until a guest-exec of /bin/kill names their pid.
  const running = new Map<number, boolean>();
  const calls: { execute: string; arguments?: Record<string, unknown>; at: number }[] = [];
  let next = 500;
  const fake = await fakeSocketServer('qga', (msg) => {
    calls.push({ ...msg, at: Date.now() });
    const a = msg.arguments ?? {};
    switch (msg.execute) {
      case 'guest-sync': return { return: a.id };
      case 'guest-exec': {
        if (a.path === '/bin/kill') running.set(Number((a.arg as string[]).at(-1)), false);
        const pid = next++;
        running.set(pid, a.path !== '/bin/kill');
        return { return: { pid } };
      }
      case 'guest-exec-status': return { return: running.get(a.pid as number) ? { exited: false } : { exited: true, signal: 9 } };
      default: return { error: { class: 'CommandNotFound', desc: msg.execute } };
    }
  });
  t.after(() => fake.close());
  const ch = createQgaChannel({ socketPath: fake.path, label: 'test', timeoutMs: 2000 });
  t.after(() => ch.close());

  const ctl = new AbortController();
  let abortedAt = 0;
  setTimeout(() => { abortedAt = Date.now(); ctl.abort(new Error('cancelled')); }, 300);
  const r = await ch.exec(['/bin/sleep', '300'], { timeoutMs: 60_000, signal: ctl.signal });
  const resolvedMs = Date.now() - abortedAt;
  assert.deepEqual([r.exit_code, r.timed_out], [null, true]);
  assert.ok(abortedAt > 0 && resolvedMs < 200, `resolved ${resolvedMs} ms after the abort`);
  const sleepPid = 500;
  assert.equal(running.get(sleepPid), false, 'the command\'s pid was killed');
  const kill = calls.find((c) => c.execute === 'guest-exec' && c.arguments!.path === '/bin/kill')!;
  assert.deepEqual(kill.arguments!.arg, ['-KILL', String(sleepPid)]);
  assert.equal(getEventListeners(ctl.signal, 'abort').length, 0, 'the abort listener is removed');
  const polls = calls.filter((c) => c.execute === 'guest-exec-status').length;
  await new Promise((res) => setTimeout(res, 600));
  assert.equal(calls.filter((c) => c.execute === 'guest-exec-status').length, polls, 'no poll after exec resolved');

  // The timeout path kills the same way.
  const timedOut = await ch.exec(['/bin/sleep', '300'], { timeoutMs: 200 });
  assert.equal(timedOut.timed_out, true);
  assert.deepEqual(calls.filter((c) => c.arguments?.path === '/bin/kill').at(-1)!.arguments!.arg, ['-KILL', String(next - 2)]);

  const sent = calls.length;
  const pre = new AbortController();
  pre.abort();
  const p = await ch.exec(['/bin/sleep', '300'], { signal: pre.signal });
  assert.deepEqual([p.exit_code, p.timed_out], [null, true]);
  assert.equal(calls.length, sent, 'an already-aborted exec sends nothing to the agent');
});

test('qemu: concurrent first calls share one agent connection (the socket serves one client)', async (t) => {
  let next = 900;
  const fake = await fakeSocketServer('qga', (msg) => {
    const a = msg.arguments ?? {};
    if (msg.execute === 'guest-sync') return { return: a.id };
    if (msg.execute === 'guest-exec') return { return: { pid: next++ } };
    if (msg.execute === 'guest-exec-status') return { return: { exited: true, exitcode: 0 } };
    return { error: { class: 'CommandNotFound', desc: msg.execute } };
  });
  t.after(() => fake.close());
  let connections = 0;
  const open = new Set<Socket>();
  fake.server.on('connection', (sock) => { connections++; open.add(sock); sock.on('close', () => open.delete(sock)); });
  const ch = createQgaChannel({ socketPath: fake.path, label: 'test', timeoutMs: 2000 });
  t.after(() => ch.close());
  const rs = await Promise.all([ch.exec(['/bin/true']), ch.exec(['/bin/true']), ch.exec(['/bin/true'])]);
  assert.deepEqual(rs.map((r) => r.exit_code), [0, 0, 0]);
  assert.equal(connections, 1);
  // The agent side drops the connection (qemu restarted the chardev): the next calls share one reconnect.
  for (const s of open) s.destroy();
  await new Promise((res) => setTimeout(res, 50));
  await Promise.all([ch.exec(['/bin/true']), ch.exec(['/bin/true'])]);
  assert.equal(connections, 2, 'one reconnect after a drop, shared too');
  // close() is final (core closes a lease's channel when its session ends): nothing reconnects.
  await ch.close();
  await assert.rejects(ch.exec(['/bin/true']), (e: unknown) => VmhubError.is(e) && /was closed: open a new one with channel\(\)/.test(e.message));
  await new Promise((res) => setTimeout(res, 50));
  assert.equal(connections, 2, 'no connection after close');
  assert.equal(open.size, 0, 'the connection was closed');
});
