import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { AdapterContext } from '../adapter.ts';
import type { ExecResult, GuestChannel } from '../channel.ts';
import { VmhubError } from '../errors.ts';
import { adapterErrors, cloneRepoUnavailable, desktopUserOption, execAsAgent, guestCommandOptions, lackingTools, pickWindow, pointerOptions, probeWith, resolveOptions, splitChords, unpackRepo, type Guest } from './index.ts';

const errors = adapterErrors('adapter-kit');
const ctxWith = (channel: Partial<GuestChannel>, signal = new AbortController().signal): AdapterContext => ({
  lease_id: 'l1', machine: { identity: 'vmhub-t-l1', external_id: 'e' }, template: { id: 't', provider: 'p', adapter: 'kit', os: 'linux', golden: 'g' },
  channel: async () => channel as GuestChannel, console: async () => { throw new Error('no console'); },
  connect: async () => { throw new Error('no ports'); }, forward: async () => { throw new Error('no ports'); }, signal,
});
const code = (e: unknown) => (VmhubError.is(e) ? e.code : String(e));

describe('core: adapter kit: desktop parts', () => {
  it('splitChords: chords by spaces, keys by "+" ("ctrl++" is the plus key, "U+2713" one key); empty keys are INVALID_REQUEST', () => {
    assert.deepEqual(splitChords(' ctrl+shift+t  Return ctrl++ U+2713 + ', errors), [
      { chord: 'ctrl+shift+t', parts: ['ctrl', 'shift', 't'] },
      { chord: 'Return', parts: ['Return'] },
      { chord: 'ctrl++', parts: ['ctrl', '+'] },
      { chord: 'U+2713', parts: ['U2713'] },
      { chord: '+', parts: ['+'] },
    ]);
    assert.throws(() => splitChords('  ', errors, 'cmd+shift+t'), (e: unknown) => code(e) === 'INVALID_REQUEST' && /cmd\+shift\+t/.test((e as Error).message));
  });

  it('pickWindow: by id, else one exact title; several titles are INVALID_REQUEST with the ids, none NOT_FOUND', () => {
    const ws = [{ id: 'A1', title: 'x' }, { id: 'b2', title: 'y' }, { id: 'c3', title: 'y' }];
    const same = (w: { id: string }, ref: string) => w.id.toLowerCase() === ref.toLowerCase();
    assert.equal(pickWindow(ws, 'a1', errors, same).id, 'A1');
    assert.equal(pickWindow(ws, 'x', errors, same).id, 'A1');
    assert.throws(() => pickWindow(ws, 'y', errors, same), (e: unknown) => code(e) === 'INVALID_REQUEST' && (e as VmhubError).details?.ids !== undefined);
    assert.throws(() => pickWindow(ws, 'z', errors, same), (e: unknown) => code(e) === 'NOT_FOUND');
  });

  it('probeWith: a failed load makes every covered capability unavailable, saying why; else judge decides', async () => {
    assert.deepEqual(await probeWith(async () => { throw new Error('no route'); }, ['click', 'type'], () => {}), {
      click: 'the guest could not be probed: no route', type: 'the guest could not be probed: no route',
    });
    assert.deepEqual(await probeWith(async () => ['xdotool'], ['click'], (missing, out) => { out.click = lackingTools(missing, 'docs.md'); }), {
      click: 'xdotool not found in the guest: add it to the golden image (docs.md)',
    });
    assert.equal(lackingTools(['a', 'b'], 'd'), 'a, b not found in the guest: add them to the golden image (d)');
    assert.equal(await cloneRepoUnavailable(ctxWith({}), ['tar'], 'd'), 'tar not found in the guest and the channel has no archive API: add tar to the golden image (d)');
    assert.equal(await cloneRepoUnavailable(ctxWith({ putArchive: async () => {} }), ['tar'], 'd'), undefined);
    assert.equal(await cloneRepoUnavailable(ctxWith({}), [], 'd'), undefined);
  });

  it('execAsAgent: the agent\'s argv, cwd, stdin, bounds and signal, as the adapter\'s user in its env', async () => {
    let seen: unknown;
    const result = { exit_code: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: false, truncated: false } as ExecResult;
    const ctx = ctxWith({ exec: async (argv, o) => { seen = { argv, ...o }; return result; } });
    assert.equal(await execAsAgent(ctx, { argv: ['ls'], cwd: '/tmp', stdin: 'in', timeout_ms: 5, max_output_bytes: 7 }, { user: 'u', env: { A: '1' } }), result);
    assert.deepEqual(seen, { argv: ['ls'], cwd: '/tmp', stdin: 'in', timeoutMs: 5, maxOutputBytes: 7, user: 'u', signal: ctx.signal, env: { A: '1' } });
  });

  it('unpackRepo: putArchive when the channel has it; else tar fed the stream, refused over max_archive_bytes', async () => {
    const options = { user: 'u', max_archive_bytes: 4, command_timeout_ms: 1000 };
    let put: unknown;
    await unpackRepo(ctxWith({ putArchive: async (dir, _tar, o) => { put = [dir, o]; } }), { dest: '/d', archive: Readable.from([Buffer.from('abc')]) }, options, errors, async () => { throw new Error('no guest'); });
    assert.deepEqual(put, ['/d', { user: 'u' }]);
    let ran: unknown;
    const guest = { sh: async (script: string, args: string[], o: { stdin: Buffer; timeoutMs: number }) => { ran = [args, o.stdin.toString(), o.timeoutMs]; } } as unknown as Guest;
    await unpackRepo(ctxWith({}), { dest: '/d', archive: Readable.from([Buffer.from('ab'), Buffer.from('c')]) }, options, errors, async () => guest);
    assert.deepEqual(ran, [['/d'], 'abc', 120_000]);
    await assert.rejects(unpackRepo(ctxWith({}), { dest: '/d', archive: Readable.from([Buffer.from('abcde')]) }, options, errors, async () => guest), (e: unknown) => code(e) === 'INVALID_REQUEST');
  });

  it('the shared option fields validate with their defaults (drag_step_delay_ms the adapter\'s)', () => {
    const schema = Type.Object({ user: desktopUserOption, ...pointerOptions({ drag_step_delay_ms: 9 }), ...guestCommandOptions }, { additionalProperties: false });
    assert.deepEqual(resolveOptions(schema, {}, 'adapter-kit'), { click_delay_ms: 60, drag_steps: 12, drag_step_delay_ms: 9, paste_timeout_ms: 2000, command_timeout_ms: 15000, max_archive_bytes: 536870912 });
    assert.throws(() => resolveOptions(schema, { user: 'Root!' }, 'adapter-kit'), (e: unknown) => code(e) === 'INVALID_REQUEST');
  });
});
