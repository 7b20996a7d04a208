/**
 * Options are snake_case like every other vmhub config key; the pre-release camelCase names are
 * rejected with a message naming the key, never silently ignored. The same holds for a template's
 * provider_options, which core checks against the schema when templates load.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import dockerProvider, { createDockerProvider } from './index.ts';
import { dockerTemplateOptions, DockerProviderOptionsSchema, DockerTemplateOptionsSchema } from './options.ts';

const context = { identityPrefix: 'vmhub-opt-', log: () => {} };

describe('docker: options', () => {
  it('every key is snake_case', () => {
    assert.deepEqual(Object.keys(DockerProviderOptionsSchema.properties).sort(), ['api_version', 'desktop_user', 'docker_host', 'exec_helper', 'framebuffer', 'framebuffer_dir', 'max_archive_bytes', 'max_file_bytes']);
  });

  it('accepts the snake_case keys and uses docker_host', async () => {
    const provider = createDockerProvider({ docker_host: 'unix:///nonexistent/vmhub-opt.sock', api_version: '1.41', desktop_user: 'user', max_file_bytes: 10, max_archive_bytes: 10, exec_helper: false }, context);
    const s = await provider.status();
    assert.equal(s.ok, false);
    assert.match(s.reason ?? '', /\/nonexistent\/vmhub-opt\.sock/);
    await provider.close?.();
  });

  for (const old of ['dockerHost', 'apiVersion', 'desktopUser', 'maxFileBytes', 'maxArchiveBytes', 'execHelper']) {
    it(`rejects the old camelCase key ${old}, naming it`, () => {
      assert.throws(() => createDockerProvider({ [old]: 1 } as never, context),
        (e: any) => e.code === 'INVALID_REQUEST' && e.message.includes(`unknown field "${old}"`));
    });
  }
});

describe('docker: template provider_options', () => {
  const tpl = (provider_options: Record<string, unknown>) => ({ ...dockerProvider.templates[0]!, id: 'docker-t', provider_options });

  it('the built-in template and the documented options pass', () => {
    for (const t of dockerProvider.templates) assert.doesNotThrow(() => dockerProvider.checkTemplate(t), t.id);
    assert.doesNotThrow(() => dockerProvider.checkTemplate(tpl({ screen: '1920x1080x24', network: 'bridge', display: ':0', user: 'user', env: { VMHUB_OUTPUT_SCALE: '2' }, guest_channel: { kind: 'adb', port: 5555 } })));
    assert.throws(() => dockerProvider.checkTemplate(tpl({ env: { 'lower-case': 'x' } })), /env/);
    assert.throws(() => dockerProvider.checkTemplate(tpl({ guest_channel: { kind: 'ssh' } })), /guest_channel/);
  });

  it('every documented key is in the schema', () => {
    assert.deepEqual(Object.keys(DockerTemplateOptionsSchema.properties).sort(), ['display', 'env', 'guest_channel', 'lease_secrets', 'network', 'screen', 'user']);
  });

  for (const key of ['scren', 'ports', 'dockerHost']) {
    it(`refuses the unknown key ${key}, naming it and the template`, () => {
      assert.throws(() => dockerProvider.checkTemplate(tpl({ [key]: 'x' })), (e: unknown) =>
        VmhubError.is(e) && e.code === 'INVALID_REQUEST' && e.message.includes(`unknown field "${key}"`) && e.message.includes('"docker-t"'));
    });
  }

  it('refuses a malformed screen (checked at load now, not at the first create)', () => {
    assert.throws(() => dockerProvider.checkTemplate(tpl({ screen: '1280x800' })), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && e.message.includes('screen'));
  });

  it('reads defaults for what a template leaves out', () => {
    assert.deepEqual(dockerTemplateOptions(tpl({})), { screen: '1280x800x24', display: ':0' });
  });
});
