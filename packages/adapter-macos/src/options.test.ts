import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { mergeOptions } from '@vmhub/core/adapter-kit';
import { MacosOptionsSchema, resolveOptions, sshAuth, vncAuth } from './options.ts';

const code = (c: string) => (e: unknown) => VmhubError.is(e) && e.code === c;

describe('macos: options', () => {
  it('defaults: Screen Sharing on 5900, SSH on 22 as admin, no in-guest tools', () => {
    const o = resolveOptions({});
    assert.deepEqual([o.vnc, o.vnc_port, o.ssh_port, o.ssh_user, o.in_guest_tools, o.command_keysym, o.shift_style], ['screen-sharing', 5900, 22, 'admin', false, 'Super_L', 'keysym']);
  });

  it('refuses unknown keys, vnc "none" without the in-guest tools, and env names that are not names', () => {
    assert.throws(() => resolveOptions({ nope: 1 } as Record<string, unknown>), code('INVALID_REQUEST'));
    assert.throws(() => resolveOptions({ vnc: 'none' }), (e: unknown) => code('INVALID_REQUEST')(e) && /in_guest_tools/.test((e as Error).message));
    assert.throws(() => resolveOptions({ ssh_key_env: 'A B' }), code('INVALID_REQUEST'));
    assert.equal(resolveOptions({ vnc: 'none', in_guest_tools: true }).vnc, 'none');
  });

  it('the template refines the instance once per session', () => {
    // What the adapter kit does at open(): merge, validate, then the adapter's own rules (resolveOptions).
    const leaseOptions = (instance: typeof base, overrides: Record<string, unknown> | undefined) => resolveOptions(mergeOptions(MacosOptionsSchema, instance, overrides, 'adapter-macos'));
    const base = resolveOptions({ ssh_user: 'lume' });
    assert.equal(mergeOptions(MacosOptionsSchema, base, undefined, 'adapter-macos'), base);
    assert.deepEqual([leaseOptions(base, { ssh_port: 2222 }).ssh_port, leaseOptions(base, { ssh_port: 2222 }).ssh_user], [2222, 'lume']);
  });

  it('secrets come from the vmhub host: env vars named in the options, a key file, or inline test credentials', () => {
    const env = { KEY: 'PRIVATE', PW: 'vncpw', USER_ENV: 'ardu' };
    assert.deepEqual(sshAuth(resolveOptions({ ssh_key_env: 'KEY' }), env), { privateKey: 'PRIVATE' });
    assert.throws(() => sshAuth(resolveOptions({ ssh_key_env: 'MISSING' }), env), (e: unknown) => code('CAPABILITY_UNAVAILABLE')(e) && /MISSING/.test((e as Error).message));
    assert.throws(() => sshAuth(resolveOptions({ ssh_key_file: '/nonexistent/key' }), env), code('CAPABILITY_UNAVAILABLE'));
    assert.throws(() => sshAuth(resolveOptions({}), env), (e: unknown) => code('CAPABILITY_UNAVAILABLE')(e) && /ssh_key_env/.test((e as Error).message));
    assert.deepEqual(sshAuth(resolveOptions({ ssh_private_key: 'INLINE' }), env), { privateKey: 'INLINE' });
    assert.deepEqual(vncAuth(resolveOptions({ vnc_username_env: 'USER_ENV', vnc_password_env: 'PW' }), undefined, env), { username: 'ardu', password: 'vncpw' });
    assert.deepEqual(vncAuth(resolveOptions({}), 'from-console', env), { password: 'from-console' });
    assert.deepEqual(vncAuth(resolveOptions({ vnc_password_env: 'PW' }), 'from-console', env), { password: 'vncpw' });
  });
});
