import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stateDirOf } from './paths.ts';

describe('store: the state directory of an instance', () => {
  it('beside a SQLite file; the default state directory for a URL; none for memory', () => {
    assert.equal(stateDirOf('/srv/vmhub/vmhub.db', {}), '/srv/vmhub');
    assert.equal(stateDirOf('postgres://u:secret@db/vmhub', { XDG_STATE_HOME: '/x', VMHUB_DB: 'postgres://u:secret@db/vmhub' }), '/x/vmhub');
    assert.equal(stateDirOf(':memory:', {}), undefined);
  });
});
