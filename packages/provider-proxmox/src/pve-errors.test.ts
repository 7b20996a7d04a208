import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeParams } from './pve-client.ts';
import { isTransient, PveApiError, toVmhubError } from './pve-errors.ts';

const e = (status: number, message: string, errors?: Record<string, string>): PveApiError => new PveApiError({ status, message, errors, method: 'POST', path: '/nodes/pve1/qemu/9000/clone', endpoint: 'default' });

describe('proxmox: error mapping', () => {
  it('maps Proxmox texts to vmhub codes', () => {
    const denied = toVmhubError(e(403, 'Permission check failed (/vms/9000, VM.Clone)'), 'cloning');
    assert.equal(denied.code, 'POLICY_DENIED');
    assert.match(denied.message, /VM\.Clone on \/vms\/9000/);
    assert.deepEqual([denied.details?.privilege, denied.details?.path], ['VM.Clone', '/vms/9000']);
    assert.equal(toVmhubError(e(500, 'VM is locked (clone)'), 'x').code, 'LOCK_CONTENTION');
    assert.equal(toVmhubError(e(500, "can't lock file '/var/lock/qemu-server/lock-101.conf' - got timeout"), 'x').code, 'LOCK_CONTENTION');
    assert.equal(toVmhubError(e(500, 'unable to get any free VMID in range [100, 1000000]'), 'x').code, 'HOST_CAPACITY');
    assert.equal(toVmhubError(e(595, 'Errors during connection establishment, proxy handshake: No route to host'), 'x').code, 'NODE_UNAVAILABLE');
    assert.equal(toVmhubError(e(0, 'connect ECONNREFUSED'), 'x').code, 'NODE_UNAVAILABLE');
    assert.equal(toVmhubError(e(596, 'Connection timed out'), 'x').code, 'TIMEOUT');
    assert.equal(toVmhubError(e(400, 'Parameter verification failed.', { tags: 'invalid format' }), 'x').code, 'PROVISION_FAILED');
  });
  it('retries transient failures only', () => {
    assert.equal(isTransient(e(0, 'socket hang up')), true);
    assert.equal(isTransient(e(596, 'Broken pipe')), true);
    assert.equal(isTransient(e(500, 'Internal Server Error')), true);
    assert.equal(isTransient(e(500, 'VM is locked (clone)')), false);
    assert.equal(isTransient(e(500, "Full clone feature is not supported for drive 'scsi0'")), false);
    assert.equal(isTransient(e(500, "Configuration file 'nodes/x/qemu-server/1.conf' does not exist")), false);
    assert.equal(isTransient(e(400, 'Parameter verification failed.')), false);
    assert.equal(isTransient(e(403, 'Permission check failed')), false);
  });
  it('form-encodes booleans as 1/0 and arrays as repeated keys', () => {
    assert.equal(encodeParams({ full: true, purge: false, command: ['/bin/sh', '-c', 'echo hi'], x: undefined, sshkeys: 'a%20b' }),
      'full=1&purge=0&command=%2Fbin%2Fsh&command=-c&command=echo%20hi&sshkeys=a%2520b');
  });
});
