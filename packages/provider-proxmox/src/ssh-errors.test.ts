import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sftpError } from './ssh-channel.ts';

it('proxmox: SFTP permission denied is POLICY_DENIED naming the user; no such file is NOT_FOUND', () => {
  const c = { op: 'write' as const, path: '/root/x', user: 'vmhub' };
  const denied = sftpError(Object.assign(new Error('Permission denied'), { code: 3 }), c);
  assert.deepEqual([denied.code, denied.retryable], ['POLICY_DENIED', false]);
  assert.match(denied.message, /permission denied: guest user "vmhub" may not write \/root\/x/);
  assert.equal(sftpError(Object.assign(new Error('No such file'), { code: 2 }), { ...c, op: 'read' }).code, 'NOT_FOUND');
  assert.equal(sftpError(Object.assign(new Error('Failure'), { code: 4 }), c).code, 'INTERNAL');
});
