import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDockerHost } from './docker-host.ts';

describe('docker: DOCKER_HOST', () => {
  it('understands unix and tcp, defaults to the standard socket', () => {
    assert.deepEqual(parseDockerHost(''), { socketPath: '/var/run/docker.sock' });
    assert.deepEqual(parseDockerHost('unix:///run/user/1000/docker.sock'), { socketPath: '/run/user/1000/docker.sock' });
    assert.deepEqual(parseDockerHost('tcp://127.0.0.1:2375'), { host: '127.0.0.1', port: 2375 });
    assert.deepEqual(parseDockerHost('tcp://localhost'), { host: 'localhost', port: 2375 });
    assert.throws(() => parseDockerHost('ssh://me@host'), /not understood/);
  });
});
