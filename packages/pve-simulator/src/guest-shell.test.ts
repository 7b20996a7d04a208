import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { guestShellExec } from './guest-shell.ts';

const run = (argv: string[], files = new Map<string, Buffer>(), input?: string) => {
  const r = guestShellExec({ vmid: 100, argv, input, files });
  return { code: r.exitcode, out: Buffer.from(r.stdout ?? '').toString(), err: String(r.stderr ?? ''), files };
};

describe('pve-simulator: default guest exec', () => {
  it('runs the coreutils a provider sends against the in-memory files', () => {
    const files = new Map([['/data/a', Buffer.from('hello')]]);
    assert.deepEqual(run(['stat', '-L', '-c', '%s', '--', '/data/a'], files).out, '5\n');
    assert.equal(run(['base64', '-w', '0', '--', '/data/a'], files).out, Buffer.from('hello').toString('base64'));
    assert.equal(run(['cat', '/data/a'], files).out, 'hello');
    const miss = run(['stat', '-c', '%s', '/nope'], files);
    assert.equal(miss.code, 1);
    assert.match(miss.err, /No such file or directory/);
    assert.equal(run(['mkdir', '-p', '--', '/x/y']).code, 0);
    assert.equal(run(['/bin/echo', 'a', 'b']).out, 'a b\n');
    assert.equal(run(['false']).code, 1);
    assert.equal(run(['cat'], new Map(), 'stdin text').out, 'stdin text');
    assert.equal(run(['some-tool', '--flag']).out, 'some-tool --flag\n', 'unknown programs echo their argv');
  });

  it('interprets sh -c scripts with positional parameters, shift, redirections and exec', () => {
    const files = new Map([['/t/f.part-0', Buffer.from('AB')], ['/t/f.part-1', Buffer.from('CD')]]);
    const join = run(['sh', '-c', 'out="$1"; shift; cat -- "$@" > "$out" && rm -f -- "$@"', 'sh', '/t/f', '/t/f.part-0', '/t/f.part-1'], files);
    assert.equal(join.code, 0, join.err);
    assert.deepEqual([...files.keys()], ['/t/f']);
    assert.equal(files.get('/t/f')!.toString(), 'ABCD');
    const cd = run(['sh', '-c', 'cd -- "$1" || exit 126; shift; exec "$@"', 'sh', '/t', 'cat', 'f'], files);
    assert.equal(cd.out, 'ABCD');
    const pipe = run(['sh', '-c', 'base64 -d >> /t/g; cat /t/g | base64 -w 0'], files, Buffer.from('xyz').toString('base64'));
    assert.equal(pipe.out, Buffer.from('xyz').toString('base64'));
    assert.equal(run(['sh', '-c', 'exit 3']).code, 3);
    assert.equal(run(['sh', '-c', 'false || echo fallback']).out, 'fallback\n');
  });

  it('records permission bits: chmod (octal, --reference), mkdir -m, carried by mv, shown by stat %a', () => {
    const files = new Map<string, Buffer>();
    const modes = new Map<string, number>();
    const owners = new Map<string, string>();
    const sh = (script: string, ...args: string[]) => guestShellExec({ vmid: 100, argv: ['sh', '-c', script, 'sh', ...args], input: 'k', files, owners, modes });
    assert.equal(sh('mkdir -p -m 700 -- "$1" && cat > "$1/t" && chmod 600 "$1/t" && mv -f -- "$1/t" "$1/f"', '/d').exitcode, 0);
    assert.equal(modes.get('/d'), 0o700);
    assert.equal(modes.get('/d/f'), 0o600);
    assert.equal(modes.has('/d/t'), false);
    assert.equal(Buffer.from(sh('stat -c "%a %U" -- "$1"', '/d/f').stdout ?? '').toString(), '600 root\n');
    assert.equal(sh('cat > /d/g && chmod --reference=/d/f -- /d/g').exitcode, 0);
    assert.equal(modes.get('/d/g'), 0o600);
    assert.equal(sh('chmod u+x /d/g && rm -f /d/g').exitcode, 0);
    assert.equal(modes.has('/d/g'), false);
    assert.equal(Buffer.from(sh('stat -c %a /d/h || stat -c %a /d').stdout ?? '').toString(), '700\n');
  });
});
