// Input is validated whole before anything acts, and no result is larger than a client accepts:
// through the built binary over stdio with the official SDK client, on the fake desktop, whose
// state shows whether anything happened.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { errorCode, stdioSuite, waitReady } from './harness.ts';

let lease = '';

async function desktop(): Promise<{ typed: string; drags: unknown[]; keys: string[]; windows: { title: string }[] }> {
  const r = await suite.s.call('vm_dispatch', { lease_id: lease, verb: 'desktop_state' });
  return r.structuredContent.result;
}

const suite = stdioSuite({
  config: { files: { max_bytes: 32 * 1024 * 1024 } },
  setup: async ({ s }) => {
    lease = (await s.call('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id;
    await waitReady(s, lease);
  },
});

describe('server: atomic input', () => {
  it('a NUL or an untypeable control character anywhere in vm_type types nothing', async () => {
    const before = (await desktop()).typed;
    for (const text of [`${'a'.repeat(300)}\u0000rm -rf ~\n`, `echo hi\n${'b'.repeat(500)}\u0007`, '\u001b[31m', 'x\u007f']) {
      const r = await suite.s.call('vm_type', { lease_id: lease, text });
      assert.equal(errorCode(r), 'INVALID_REQUEST', JSON.stringify(r.structuredContent));
      assert.match(r.structuredContent.message, /U\+00(00|07|1b|7f) at character \d+.*nothing was done/);
    }
    assert.equal((await desktop()).typed, before, 'not one character arrived');
    assert.equal((await suite.s.call('vm_type', { lease_id: lease, text: 'tab\tand\r\nnewline' })).isError, undefined, 'tab, CR and LF are keys');
  });

  it('unknown nested fields are refused: vm_drag {from: {x, y, z}}, a screenshot region with extras', async () => {
    const drags = (await desktop()).drags.length;
    const r = await suite.s.call('vm_drag', { lease_id: lease, from: { x: 10, y: 10, z: 1 }, to: { x: 20, y: 20 }, coordinate_space: 'screen' });
    assert.equal(errorCode(r), 'INVALID_REQUEST');
    assert.match(r.structuredContent.message, /from.*unknown field "z"|unknown field "z".*from/);
    assert.equal((await desktop()).drags.length, drags, 'no drag happened');
    assert.equal(errorCode(await suite.s.call('vm_screenshot', { lease_id: lease, region: { x: 0, y: 0, width: 10, height: 10, depth: 3 } })), 'INVALID_REQUEST');
  });

  it('NUL in argv, window names, keys and URLs is refused before the adapter runs', async () => {
    const keys = (await desktop()).keys.length;
    for (const [tool, args] of [
      ['vm_exec', { command: ['echo', 'a\u0000b'] }],
      ['vm_exec', { shell: 'echo a\u0000; touch /tmp/x' }],
      ['vm_launch', { app: 'xterm\u0000', args: [] }],
      ['vm_launch', { app: 'xterm', args: ['-e', 'sh\u0000'] }],
      ['vm_focus', { window: 'Terminal\u0000' }],
      ['vm_key', { keys: 'ctrl+\u0003' }],
      ['vm_paste', { text: 'a\u0000b' }],
      ['vm_clone_repo', { url: 'https://example.invalid/r\u0000.git' }],
    ] as const) {
      const r = await suite.s.call(tool, { lease_id: lease, ...args });
      assert.equal(errorCode(r), 'INVALID_REQUEST', `${tool} ${JSON.stringify(args)}: ${JSON.stringify(r.structuredContent)}`);
    }
    assert.equal((await desktop()).keys.length, keys, 'no key was pressed, nothing pasted');
  });
});

describe('server: results fit the transport', () => {
  it('an 11 MB file answers RESULT_TOO_LARGE with how to continue, the session survives, and parts reassemble exactly', { timeout: 120_000 }, async () => {
    const data = randomBytes(11 * 1024 * 1024);
    const sha = createHash('sha256').update(data).digest('hex');
    // Requests may be large (the server's stdio reader takes any line); results may not.
    const path = 'big/blob.bin';
    const put = await suite.s.call('vm_put_file', { lease_id: lease, path, content_base64: data.toString('base64') });
    assert.equal(put.isError, undefined, JSON.stringify(put.structuredContent));
    assert.equal(put.structuredContent.sha256, sha);

    const whole = await suite.s.call('vm_get_file', { lease_id: lease, path });
    assert.equal(errorCode(whole), 'RESULT_TOO_LARGE', JSON.stringify(whole.structuredContent).slice(0, 500));
    assert.match(whole.structuredContent.hint, /vm_get_file \{path, offset: 0, length: \d+\}/);
    const step = Number(/length: (\d+)/.exec(whole.structuredContent.hint)![1]);

    // The session is still alive, and the parts come back byte-exact.
    const parts: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const r = await suite.s.call('vm_get_file', { lease_id: lease, path, offset, length: step });
      assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent).slice(0, 300));
      assert.equal(r.structuredContent.size, data.length);
      assert.equal(r.structuredContent.sha256, sha, 'sha256 is the whole file\'s');
      parts.push(Buffer.from(r.structuredContent.content_base64, 'base64'));
      offset += r.structuredContent.length;
      if (r.structuredContent.eof) break;
    }
    assert.ok(parts.length >= 3);
    assert.equal(createHash('sha256').update(Buffer.concat(parts)).digest('hex'), sha);
    assert.equal((await suite.s.call('vm_health')).isError, undefined);
  });
});
