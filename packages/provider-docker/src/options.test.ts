/**
 * Options are snake_case like every other vmhub config key; the pre-release camelCase names are
 * rejected with a message naming the key, never silently ignored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDockerProvider } from './index.ts';
import { DockerProviderOptionsSchema } from './options.ts';

const context = { identityPrefix: 'vmhub-opt-', log: () => {} };

describe('docker: options', () => {
  it('every key is snake_case', () => {
    assert.deepEqual(Object.keys(DockerProviderOptionsSchema.properties).sort(), ['api_version', 'desktop_user', 'docker_host', 'exec_helper', 'max_archive_bytes', 'max_file_bytes']);
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
