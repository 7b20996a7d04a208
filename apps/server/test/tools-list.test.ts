import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { connect, sandbox, type Sandbox, type Session } from './harness.ts';

const EXPECTED = ['vm_list_templates', 'vm_capabilities', 'vm_health', 'vm_lease_create', 'vm_lease_status', 'vm_lease_renew', 'vm_lease_release', 'vm_lease_list', 'vm_screenshot', 'vm_wait', 'vm_find_text', 'vm_inspect', 'vm_list_windows', 'vm_focus', 'vm_close', 'vm_launch', 'vm_click', 'vm_type', 'vm_key', 'vm_paste', 'vm_drag', 'vm_scroll', 'vm_batch', 'vm_dispatch', 'vm_put_file', 'vm_get_file', 'vm_clone_repo', 'vm_exec'];

let box: Sandbox;
let s: Session;
before(async () => { box = sandbox(); s = await connect(box); });
after(async () => { await s.close(); box.cleanup(); });

it('server: tools/list shows all 28 tools with title, input and output schema and annotations', async () => {
  const { tools } = await s.client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...EXPECTED].sort());
  for (const t of tools) {
    assert.ok(t.title && t.description, `${t.name} has a title and description`);
    assert.equal(t.inputSchema.type, 'object', `${t.name} input schema is an object`);
    assert.equal(t.outputSchema?.type, 'object', `${t.name} has an output schema`);
    assert.ok(t.annotations && Object.keys(t.annotations).length > 0, `${t.name} has annotations`);
    if (t.name !== 'vm_list_templates' && t.name !== 'vm_health' && t.name !== 'vm_capabilities' && t.name !== 'vm_lease_create' && t.name !== 'vm_lease_list') {
      assert.ok((t.inputSchema.required as string[] | undefined)?.includes('lease_id'), `${t.name} takes lease_id`);
    }
  }
  // Agents pay for every byte of tools/list in every conversation. The budget is the design's
  // (ARCHITECTURE.md §4): 20 KB for all tools, the text and batch tools of issue 16 included.
  const size = JSON.stringify({ tools }).length;
  assert.ok(size <= 20 * 1024, `tools/list is ${size} bytes; the budget is 20 KB`);
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.vm_screenshot!.annotations?.readOnlyHint, true);
  assert.equal(byName.vm_lease_release!.annotations?.destructiveHint, true);
  assert.equal(byName.vm_lease_list!.annotations?.readOnlyHint, true);
  assert.deepEqual(Object.keys((byName.vm_lease_list!.inputSchema.properties as object)).sort(), ['owner', 'status']);
  assert.deepEqual(Object.keys((byName.vm_click!.inputSchema.properties as object)).sort(), ['button', 'coordinate_space', 'count', 'index', 'lease_id', 'mark', 'modifiers', 'text', 'x', 'y']);
  assert.equal(byName.vm_wait!.annotations?.readOnlyHint, true);
  assert.deepEqual((byName.vm_batch!.inputSchema.properties as any).actions.items.properties.action.enum, ['click', 'type', 'key', 'paste', 'drag', 'scroll', 'wait', 'wait_for']);
});

it('server: the server identifies itself and gives agents instructions', async () => {
  assert.equal(s.client.getServerVersion()?.name, 'vmhub');
  assert.match(s.client.getInstructions() ?? '', /vm_lease_create/);
});
