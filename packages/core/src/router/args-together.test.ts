import assert from 'node:assert/strict';
import { it } from 'node:test';
import { assertArgsTogether } from './args-together.ts';

it('router: vm_lease_create takes a template or a snapshot to fork, count only with the snapshot', () => {
  assert.throws(() => assertArgsTogether('vm_lease_create', {}), /missing field "template" \(or snapshot_id/);
  assert.throws(() => assertArgsTogether('vm_lease_create', { template: 't', snapshot_id: 's' }), /"template" is not given with snapshot_id/);
  assert.throws(() => assertArgsTogether('vm_lease_create', { template: 't', count: 2 }), /"count" counts forks/);
  assertArgsTogether('vm_lease_create', { template: 't' });
  assertArgsTogether('vm_lease_create', { snapshot_id: 's', count: 3 });
});

it('router: each vm_snapshot action names what it needs and refuses what it does not take', () => {
  assert.throws(() => assertArgsTogether('vm_snapshot', { action: 'create' }), /missing field "lease_id" \(action "create" needs it\)/);
  assert.throws(() => assertArgsTogether('vm_snapshot', { action: 'restore', lease_id: 'l' }), /missing field "snapshot_id"/);
  assert.throws(() => assertArgsTogether('vm_snapshot', { action: 'delete' }), /missing field "snapshot_id"/);
  assert.throws(() => assertArgsTogether('vm_snapshot', { action: 'list', name: 'n' }), /"name" labels a new snapshot/);
  assert.throws(() => assertArgsTogether('vm_snapshot', { action: 'create', lease_id: 'l', snapshot_id: 's' }), /"snapshot_id" is not taken by action "create"/);
  for (const ok of [{ action: 'list' }, { action: 'list', lease_id: 'l' }, { action: 'create', lease_id: 'l', name: 'n' }, { action: 'restore', lease_id: 'l', snapshot_id: 's' }, { action: 'delete', snapshot_id: 's' }]) assertArgsTogether('vm_snapshot', ok);
});
