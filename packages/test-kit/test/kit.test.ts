import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { accepts, freePort, startHttpServer, startRoundRobinProxy, tempDir, until, untilFileHas, waitPort } from '../src/index.ts';
import { createHostChannel } from '../src/host-channel.ts';
import { rejectsWith } from '../src/errors.ts';
import { VmhubError } from '@vmhub/core';

describe('until', () => {
  it('returns the first truthy value the check gives', async () => {
    let n = 0;
    assert.equal(await until(() => (++n >= 3 ? `after ${n}` : false), 'three checks', 2000, 10), 'after 3');
  });

  it('times out naming what it waited for, after about ms', async () => {
    const t0 = Date.now();
    await assert.rejects(until(async () => undefined, 'the moon', 200, 20), /timed out after 200 ms waiting for the moon/);
    assert.ok(Date.now() - t0 >= 200);
  });
});

describe('untilFileHas', () => {
  it('returns the content once the text is there, or throws with the tail', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'serial.log');
    setTimeout(() => writeFileSync(file, 'booting\nlogin: '), 100);
    assert.equal(await untilFileHas(file, 'login:', 2000, 20), 'booting\nlogin: ');
    await assert.rejects(untilFileHas(file, 'never', 100, 20), /serial\.log never showed "never" in 100 ms; its tail: booting\nlogin: /);
  });
});

describe('ports', () => {
  it('freePort gives a port a listener can bind on 127.0.0.1', async () => {
    const port = await freePort();
    const s = createServer();
    await new Promise<void>((resolve, reject) => { s.once('error', reject); s.listen(port, '127.0.0.1', resolve); });
    try {
      assert.equal(await accepts(port), true);
      await waitPort(port, 1000);
    } finally {
      await new Promise((r) => s.close(r));
    }
    assert.equal(await accepts(port), false);
    await assert.rejects(waitPort(port, 200), /nothing listened/);
  });
});

describe('startRoundRobinProxy', () => {
  /** A loopback server that answers each connection with its own name and closes. */
  async function named(name: string): Promise<{ port: number; close(): void }> {
    const server = createServer((s) => s.end(name));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { port: (server.address() as { port: number }).port, close: () => server.close() };
  }
  /** What one connection through the proxy reads ('' when it is closed unanswered). */
  async function read(port: number): Promise<string> {
    const { connect } = await import('node:net');
    return new Promise((resolve, reject) => {
      let text = '';
      const s = connect({ host: '127.0.0.1', port });
      s.on('data', (d) => { text += d; });
      s.on('close', () => resolve(text));
      s.on('error', reject);
    });
  }

  it('hands connections to the backends in turn; a refusing one is skipped; none left closes the client', async () => {
    const [a, b] = [await named('A'), await named('B')];
    const proxy = await startRoundRobinProxy([a.port, b.port]);
    try {
      const seen: string[] = [];
      for (let i = 0; i < 6; i++) seen.push(await read(proxy.port));
      assert.deepEqual(seen, ['A', 'B', 'A', 'B', 'A', 'B']);
      assert.deepEqual(proxy.connections(), { [a.port]: 3, [b.port]: 3 });
      a.close();
      await until(async () => !(await accepts(a.port)), 'A stops listening', 2000, 20);
      for (let i = 0; i < 3; i++) assert.equal(await read(proxy.port), 'B');
      assert.deepEqual(proxy.connections(), { [a.port]: 3, [b.port]: 6 }, 'refused connections are not counted');
      b.close();
      await until(async () => !(await accepts(b.port)), 'B stops listening', 2000, 20);
      assert.equal(await read(proxy.port), '', 'no backend: the connection is closed');
    } finally {
      a.close(); b.close();
      await proxy.close();
    }
  });
});

describe('tempDir', () => {
  it('makes a directory and removes it with its content', () => {
    const dir = tempDir('vmhub-kit-test-');
    writeFileSync(join(dir.path, 'f'), 'x');
    assert.ok(existsSync(join(dir.path, 'f')));
    dir.cleanup();
    assert.equal(existsSync(dir.path), false);
    dir.cleanup();
  });

  it('is removed at the end of a using block', () => {
    let path: string;
    {
      using dir = tempDir();
      path = dir.path;
      assert.ok(existsSync(path));
    }
    assert.equal(existsSync(path), false);
  });
});

describe('host channel', () => {
  it('runs argv here, reads and writes files, NOT_FOUND for a missing file', async () => {
    using dir = tempDir();
    const ch = createHostChannel({ home: dir.path });
    const r = await ch.exec(['sh', '-c', 'echo hi; pwd']);
    assert.equal(r.exit_code, 0);
    assert.equal(r.stdout.toString(), `hi\n${dir.path}\n`);
    await ch.putFile(join(dir.path, 'a/b.txt'), Buffer.from('data'));
    assert.equal((await ch.getFile(join(dir.path, 'a/b.txt'))).toString(), 'data');
    await assert.rejects(ch.getFile(join(dir.path, 'none')), (e: { code?: string }) => e.code === 'NOT_FOUND');
    assert.deepEqual(ch.calls, [['sh', '-c', 'echo hi; pwd']]);
  });
});

describe('startHttpServer', () => {
  it('resolves with the URL the server prints, and stops it', async () => {
    using dir = tempDir();
    const bin = join(dir.path, 'bin.mjs');
    writeFileSync(bin, `process.stderr.write('[vmhub] listening at http://127.0.0.1:4321/mcp ' + process.argv.slice(2).join(' ') + ' ' + process.env.X + '\\n'); setInterval(() => {}, 1000);`);
    const s = await startHttpServer({ bin, env: { X: 'y' } });
    assert.equal(s.base, 'http://127.0.0.1:4321');
    assert.equal(s.url, 'http://127.0.0.1:4321/mcp');
    await until(() => s.stderr().includes('--http --port 0 y'), 'the whole line', 2000, 10);
    await s.stop();
    assert.equal(s.exited(), true);
  });

  it('rejects with the stderr of a server that exits before listening', async () => {
    using dir = tempDir();
    const bin = join(dir.path, 'bin.mjs');
    writeFileSync(bin, `process.stderr.write('bad config\\n'); process.exit(2);`);
    await assert.rejects(startHttpServer({ bin, env: {} }), /server exited 2: bad config/);
  });
});

describe('rejectsWith', () => {
  it('gives back the VmhubError of the code; fails on another code, another error or a resolve', async () => {
    const err = await rejectsWith(Promise.reject(new VmhubError('NOT_FOUND', 'no such lease')), 'NOT_FOUND', /no such/);
    assert.equal(err.message, 'no such lease');
    await assert.rejects(rejectsWith(Promise.reject(new VmhubError('NOT_FOUND', 'x')), 'INVALID_REQUEST'));
    await assert.rejects(rejectsWith(Promise.reject(new Error('plain')), 'NOT_FOUND'), /expected a VmhubError/);
    await assert.rejects(rejectsWith(Promise.resolve(1), 'NOT_FOUND'), /but it resolved/);
  });
});
