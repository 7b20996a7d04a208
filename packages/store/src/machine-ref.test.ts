import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldDestroys, listedRef, machineRef } from './machine-ref.ts';

describe('store: machine handles and the destroy rule', () => {
  it('a row without external_id has no handle; details only when a non-empty object', () => {
    assert.equal(machineRef({ identity: 'i', external_id: null, node: null, details: '{}' } as never), undefined);
    assert.equal(machineRef({ identity: 'i', external_id: '', node: null, details: '{}' } as never), undefined);
    assert.deepEqual(machineRef({ identity: 'i', external_id: 'e', node: 'n', details: '{"a":1}' } as never), { identity: 'i', external_id: 'e', node: 'n', details: { a: 1 } });
    assert.deepEqual(machineRef({ identity: 'i', external_id: 'e', node: null, details: 'not json' } as never), { identity: 'i', external_id: 'e' });
  });

  it('foldDestroys: ours unless every machine found carries another identity; none found is already gone', () => {
    assert.deepEqual(foldDestroys([]), { outcome: 'already_gone', machine: 'destroyed' });
    assert.deepEqual(foldDestroys(['destroyed']), { outcome: 'destroyed', machine: 'destroyed' });
    assert.deepEqual(foldDestroys(['already_gone', 'destroyed']), { outcome: 'destroyed', machine: 'destroyed' });
    assert.deepEqual(foldDestroys(['already_gone']), { outcome: 'already_gone', machine: 'destroyed' });
    assert.deepEqual(foldDestroys(['identity_mismatch', 'already_gone']), { outcome: 'already_gone', machine: 'destroyed' });
    assert.deepEqual(foldDestroys(['identity_mismatch', 'identity_mismatch']), { outcome: 'identity_mismatch', machine: 'mismatch' });
  });

  it('listedRef keeps only a listed machine\'s handle fields', () => {
    assert.deepEqual(listedRef({ identity: 'i', external_id: 'e', extra: 1 } as never), { identity: 'i', external_id: 'e' });
    assert.deepEqual(listedRef({ identity: 'i', external_id: 'e', node: 'n', details: { k: 'v' } }), { identity: 'i', external_id: 'e', node: 'n', details: { k: 'v' } });
  });
});
