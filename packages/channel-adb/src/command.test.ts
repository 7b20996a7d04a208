/** The command line adbd gets: every argv element literal, env names checked, pid first. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { buildCommand, killCommand, shQuote } from './command.ts';
import { CappedOutput } from '@vmhub/core';
import { PacketDecoder, packet, stdinPackets, ID_STDOUT, ID_EXIT } from './shell-v2.ts';

describe('command line', () => {
  it('quotes so sh sees each element literally', () => {
    const argv = ['printf', '%s\\n', "it's", '$(id)', 'a;b', '`x`', 'new\nline', 'ü✓', ''];
    const line = buildCommand({ argv, cwd: "/tmp/it's", env: { A_B: "x'y" } });
    assert.match(line, /^echo \$\$; cd '\/tmp\/it'\\''s' \|\| exit 127; export A_B='x'\\''y'; exec 'printf' /);
    const out = execFileSync('sh', ['-c', line.replace(/^echo \$\$; cd [^;]+; /, '')], { encoding: 'utf8' });
    assert.equal(out, "it's\n$(id)\na;b\n`x`\nnew\nline\nü✓\n\n");
    assert.equal(shQuote(''), "''");
    assert.throws(() => buildCommand({ argv: [] }), /argv is empty/);
    assert.throws(() => buildCommand({ argv: ['a\0b'] }), /NUL/);
    assert.throws(() => buildCommand({ argv: ['true'], env: { 'A-B': '1' } }), /not a shell identifier/);
    assert.equal(killCommand(42), 'kill -9 -42 2>/dev/null || kill -9 42 2>/dev/null; exit 0');
  });
});

describe('shell v2 packets', () => {
  it('decodes packets split across chunks and caps output', () => {
    const wire = Buffer.concat([packet(ID_STDOUT, Buffer.from('hello')), packet(ID_EXIT, Buffer.from([7]))]);
    const d = new PacketDecoder();
    const got = [...wire].flatMap((b) => d.push(Buffer.from([b])));
    assert.deepEqual(got.map((p) => [p.id, p.payload.toString('latin1')]), [[1, 'hello'], [3, '\x07']]);
    assert.equal(stdinPackets(Buffer.alloc(150 * 1024)).length, 4);
    const sink = new CappedOutput(3);
    sink.push(Buffer.from('ab'));
    sink.push(Buffer.from('cd'));
    assert.equal(sink.toBuffer().toString(), 'abc');
    assert.equal(sink.truncated, true);
  });
});
