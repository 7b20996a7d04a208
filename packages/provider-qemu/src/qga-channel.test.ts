import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { createQgaChannel } from './qga-channel.ts';
import { fakeSocketServer } from '../test/fake-qemu.ts';

test('qemu: guest-agent channel runs exec with stdin and cwd, moves files in chunks', async (t) => {
  const files = new Map<string, Buffer>();
  const handles = new Map<number, { path: string; pos: number }>();
  const execs = new Map<number, { polls: number; out: Buffer; code: number }>();
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
        execs.set(pid, { polls: 0, out: Buffer.concat([Buffer.from(`${a.path} ${(a.arg as string[]).join(' ')}|`), stdin]), code: a.path === '/bin/sh' ? 3 : a.path === '/bin/chmod' && (a.arg as string[]).includes('/ro/f') ? 1 : 0 });
        return { return: { pid } };
      }
      case 'guest-exec-status': {
        const e = execs.get(a.pid as number)!;
        if (e.polls++ < 2) return { return: { exited: false } };
        execs.delete(a.pid as number);
        return { return: { exited: true, exitcode: e.code, 'out-data': e.out.toString('base64'), 'err-data': '' } };
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
  assert.ok((await ch.getFile('/data/big.bin')).equals(big));
  await assert.rejects(ch.getFile('/data/big.bin', { maxBytes: 1000 }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
  await assert.rejects(ch.getFile('/nope'), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND');
  assert.equal(handles.size, 0, 'every handle closed');

  await ch.putFile('/data/empty', Buffer.alloc(0), { mode: 0o755 });
  assert.equal(files.get('/data/empty')!.length, 0, 'an empty file is created');
  const chmod = calls.filter((c) => c.execute === 'guest-exec' && c.arguments!.path === '/bin/chmod').at(-1)!;
  assert.deepEqual(chmod.arguments!.arg, ['755', '--', '/data/empty']);
  await assert.rejects(ch.putFile('/ro/f', Buffer.from('x'), { mode: 0o600 }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /mode of \/ro\/f/.test(e.message));
  assert.equal(handles.size, 0, 'every handle closed');

  await ch.exec(['env'], { env: { A: '1' } });
  const envCall = calls.filter((c) => c.execute === 'guest-exec').at(-1)!;
  assert.deepEqual(envCall.arguments!.env, ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'A=1']);
  const before = calls.length;
  await assert.rejects(ch.exec(['id'], { user: 'alice' }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /root/.test(e.message));
  await assert.rejects(ch.putFile('/x', Buffer.from('x'), { user: 'alice' }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
  assert.equal(calls.length, before, 'nothing sent for a refused user');
});
