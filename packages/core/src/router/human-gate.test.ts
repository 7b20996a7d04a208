import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '../errors.ts';
import { TOOL_NAMES, type ToolName } from '../tools.ts';
import { assertAgentMayAct, HUMAN_GATED_GUEST_TOOLS, HUMAN_GATED_TOOLS, humanGate } from './human-gate.ts';

const held = { human: true as const, since: '2026-01-01T00:00:00.000Z' };
const refused = (name: ToolName, input: Record<string, unknown>, control: Parameters<typeof assertAgentMayAct>[3]) => {
  try { assertAgentMayAct(name, input, 'lease-1', control); return undefined; } catch (e) { return e; }
};

describe('core: the take-over gate', () => {
  it('commands and file writes wait for the person, unless they allowed them; input tools always wait', () => {
    for (const name of ['vm_exec', 'vm_put_file', 'vm_clone_repo'] as const) {
      const input = name === 'vm_exec' ? { shell: 'DISPLAY=:0 xdotool type hi' } : {};
      const e = refused(name, input, held);
      assert.ok(VmhubError.is(e) && e.code === 'HUMAN_CONTROL' && e.retryable, name);
      assert.match((e as VmhubError).message, /did not allow commands and files/);
      assert.match((e as VmhubError).hint, /allow them in the dashboard/);
      assert.equal(refused(name, input, { ...held, allow_commands_and_files: true }), undefined, `${name} allowed`);
      assert.equal(refused(name, input, undefined), undefined, `${name} with the agent driving`);
    }
    for (const name of HUMAN_GATED_TOOLS) {
      const e = refused(name, {}, { ...held, allow_commands_and_files: true });
      assert.ok(VmhubError.is(e) && e.code === 'HUMAN_CONTROL', `${name} waits even with the allowance`);
    }
  });

  it('watching and reading never wait: a detached command\'s result is read, nothing starts', () => {
    assert.equal(humanGate('vm_exec', { job: 'job-1' }), undefined);
    assert.equal(humanGate('vm_exec', { job: 'job-1', shell: 'x' }), 'guest');
    for (const name of TOOL_NAMES) {
      if (HUMAN_GATED_TOOLS.has(name) || HUMAN_GATED_GUEST_TOOLS.has(name)) continue;
      assert.equal(refused(name, {}, held), undefined, name);
    }
    // vm_get_clipboard reads what the person copied: their data, like a command would.
    assert.deepEqual([...HUMAN_GATED_GUEST_TOOLS].sort(), ['vm_clone_repo', 'vm_exec', 'vm_get_clipboard', 'vm_put_file']);
    assert.ok(HUMAN_GATED_TOOLS.has('vm_dispatch'), 'adapter verbs may act on the screen: always gated');
  });
});
