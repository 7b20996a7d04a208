import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { channelError, scrub } from './docker-errors.ts';
import { errnoFromText, fsError } from '@vmhub/core';

const id = 'a'.repeat(12) + 'b'.repeat(52);
const m = { containerId: id, identity: 'vmhub-x-1234' };

describe('docker: errors in guest terms', () => {
  it('scrub turns storage-driver paths into guest paths and engine ids into the identity', () => {
    const layer = 'c'.repeat(64);
    assert.equal(scrub(`open /var/lib/docker/overlay2/${layer}/merged/home/user/x.txt: is a directory`, m), 'open /home/user/x.txt: is a directory');
    assert.equal(scrub(`lstat /data/docker/overlay2/${layer}-init/diff: no such file`, m), 'lstat /: no such file');
    assert.equal(scrub(`container ${id} and ${id.slice(0, 12)} and exec ${'d'.repeat(64)}`, m), 'container vmhub-x-1234 and vmhub-x-1234 and exec <id>');
    assert.equal(scrub('see /var/lib/docker/containers/x/config.v2.json', m), 'see <docker data dir>');
  });

  it('a removed or stopped container is MACHINE_LOST; other engine errors keep their code, scrubbed', () => {
    const log: string[] = [];
    const gone = channelError(new VmhubError('NOT_FOUND', `Docker API POST /containers/${id}/exec → 404: No such container: ${id}`, { details: { status: 404, docker_message: `No such container: ${id}` } }), m, (_l, msg) => log.push(msg));
    assert.equal(gone.code, 'MACHINE_LOST');
    assert.ok(!gone.message.includes(id.slice(0, 12)));
    assert.ok(log[0]!.includes(id), 'the original goes to the debug log');
    const stopped = channelError(new VmhubError('LOCK_CONTENTION', 'x', { details: { status: 409, docker_message: `Container ${id} is not running` } }), m, () => {});
    assert.deepEqual([stopped.code, stopped.retryable], ['MACHINE_LOST', false]);
    assert.match(stopped.message, /is stopped/);
    const other = channelError(new VmhubError('INTERNAL', `failed at /var/lib/docker/overlay2/${'e'.repeat(64)}/merged/tmp/y`, { details: { status: 500, docker_message: `${id} broke` } }), m, () => {});
    assert.equal(other.code, 'INTERNAL');
    assert.equal(other.message, 'failed at /tmp/y');
    assert.equal(other.details?.docker_message, 'vmhub-x-1234 broke');
  });

  it('errno names and the spellings of glibc, musl and busybox map to typed codes', () => {
    assert.equal(errnoFromText('sh: 1: cannot create /tmp: Is a directory'), 'EISDIR');
    assert.equal(errnoFromText("mkdir: cannot create directory '/x/aaaa': Filename too long"), 'ENAMETOOLONG');
    assert.equal(errnoFromText('cat: /a: Symbolic link loop'), 'ELOOP');
    assert.equal(errnoFromText('Too many levels of symbolic links'), 'ELOOP');
    const c = { op: 'write' as const, path: '/home/user/x', user: 'user', source: 'provider-docker' };
    assert.equal(fsError('EACCES', c)!.code, 'POLICY_DENIED');
    assert.equal(fsError('ENOENT', { ...c, op: 'read' })!.code, 'NOT_FOUND');
    assert.match(fsError('ENAMETOOLONG', { ...c, path: `/home/${'a'.repeat(256)}` })!.message, /longer than 255 bytes/);
    assert.match(fsError('ENAMETOOLONG', c)!.message, /path too long or too deep/);
    assert.equal(fsError('EIO', c), undefined, 'an errno it does not know is left to the caller');
  });
});
