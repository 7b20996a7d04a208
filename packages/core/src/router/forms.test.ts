import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOOLS } from '../tools.ts';
import { assertValid } from '../validate.ts';
import { toHandler, toPublished, withoutNulls } from './forms.ts';

const args = (name: 'vm_exec' | 'vm_click' | 'vm_dispatch', a: Record<string, unknown>) => toHandler(name, assertValid(TOOLS[name].input, toPublished(name, { lease_id: 'l', ...a }), `${name} arguments`));

describe('core: published and older argument forms', () => {
  it('the published exclusive choice and the older flat call reach the handler alike', () => {
    assert.deepEqual(args('vm_exec', { run: { shell: 'ls' }, cwd: '/tmp' }), { lease_id: 'l', shell: 'ls', cwd: '/tmp' });
    assert.deepEqual(args('vm_exec', { shell: 'ls', cwd: '/tmp' }), { lease_id: 'l', shell: 'ls', cwd: '/tmp' });
    assert.deepEqual(args('vm_exec', { job: 'j1' }), { lease_id: 'l', job: 'j1' });
    assert.deepEqual(args('vm_click', { target: { x: 1, y: 2 }, button: 'right' }), { lease_id: 'l', x: 1, y: 2, button: 'right' });
    assert.deepEqual(args('vm_click', { text: 'OK', index: 1 }), { lease_id: 'l', text: 'OK', index: 1 });
    assert.deepEqual(args('vm_dispatch', { verb: 'v', args: '{"a":1}' }), { lease_id: 'l', verb: 'v', args: { a: 1 } });
    assert.deepEqual(args('vm_dispatch', { verb: 'v', args: { a: [1] } }), { lease_id: 'l', verb: 'v', args: { a: [1] } });
  });
  it('two forms at once, a half form or a bad args text is a typed error naming the forms', () => {
    assert.throws(() => args('vm_exec', { command: ['ls'], shell: 'ls' }), /run must be exactly one of \{command\}, \{shell\}, \{job\}/);
    assert.throws(() => args('vm_click', { target: { x: 1 } }), /target must be exactly one of \{x, y\}, \{window, x, y\}, \{text\}, \{mark\}, \{ref\} \(missing field "y"\)/);
    assert.throws(() => args('vm_click', { x: 1, y: 2, mark: 3 }), (e: any) => e.code === 'INVALID_REQUEST' && /target must be exactly one of/.test(e.message));
    assert.throws(() => args('vm_dispatch', { verb: 'v', args: '[1]' }), /args must be the text of a JSON object/);
  });
  it('a strict-mode batch step drops its nulls', () => {
    assert.deepEqual(withoutNulls({ action: 'click', target: { x: 1, y: 2 }, button: null, count: null }), { action: 'click', target: { x: 1, y: 2 } });
  });
});
