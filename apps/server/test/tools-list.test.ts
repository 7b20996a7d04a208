import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { DEFAULT_TOOLSETS, TOOLSET_OF } from '@vmhub/core';
import { connect, sandbox, type Sandbox, type Session } from './harness.ts';

// The annotation sets the tools carry: read-only, read-only and idempotent, acting, acting and
// idempotent, destructive.
const RO = { readOnlyHint: true } as const;
const RO_ID = { readOnlyHint: true, idempotentHint: true } as const;
const ACT = { destructiveHint: false } as const;
const ACT_ID = { destructiveHint: false, idempotentHint: true } as const;
const DESTROY = { destructiveHint: true } as const;

/** Every tool by toolset, with the annotations it carries (they must stay true: ../docs/agent-tools.md). */
const TOOLSETS = {
  lease: { vm_list_templates: RO_ID, vm_capabilities: RO_ID, vm_lease_create: ACT_ID, vm_lease_status: RO, vm_lease_renew: ACT_ID, vm_lease_release: { ...DESTROY, idempotentHint: true }, vm_lease_list: RO_ID, vm_snapshot: DESTROY, vm_lease_restart: DESTROY },
  screen: { vm_screenshot: RO, vm_wait: RO, vm_find_text: RO },
  input: { vm_click: ACT, vm_type: ACT, vm_key: ACT, vm_paste: ACT, vm_drag: ACT, vm_scroll: ACT },
  batch: { vm_batch: ACT },
  files: { vm_put_file: DESTROY, vm_get_file: RO, vm_clone_repo: { ...DESTROY, openWorldHint: true }, vm_get_clipboard: RO },
  exec: { vm_exec: DESTROY },
  apps: { vm_launch: ACT, vm_list_windows: RO, vm_focus: ACT, vm_close: DESTROY, vm_inspect: RO },
  admin: { vm_health: RO, vm_dispatch: DESTROY, vm_logs: RO },
} as const;
/** Every tool: its toolset and its annotations. */
const TABLE: Record<string, readonly [string, Record<string, boolean>]> = Object.fromEntries(Object.entries(TOOLSETS).flatMap(([set, tools]) => Object.entries(tools).map(([name, annotations]) => [name, [set, annotations] as const])));
const DEFAULT = Object.entries(TABLE).filter(([, [set]]) => (DEFAULT_TOOLSETS as readonly string[]).includes(set)).map(([n]) => n);

let box: Sandbox;
let s: Session;
let all: Session;
// No toolsets in the config or the environment (the harness names all): the server's default.
before(async () => { box = sandbox({ toolsets: undefined }); s = await connect(box, { VMHUB_TOOLSETS: '' }); all = await connect(box, { VMHUB_TOOLSETS: 'all' }); });
after(async () => { await s.close(); await all.close(); box.cleanup(); });

it('server: tools/list shows the default toolsets, within 20 KB', async () => {
  const { tools } = await s.client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...DEFAULT].sort());
  // Agents pay for every byte of tools/list in every conversation: the default sets stay within
  // the design's 20 KB (ARCHITECTURE.md §4; docs/architecture.md).
  const size = JSON.stringify({ tools }).length;
  assert.ok(size <= 20 * 1024, `default tools/list is ${size} bytes; the budget is 20 KB`);
});

it('server: VMHUB_TOOLSETS=all lists all 32 tools within 28 KB, with title, schemas and the annotation table', async () => {
  const { tools } = await all.client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(TABLE).sort());
  const size = JSON.stringify({ tools }).length;
  assert.ok(size <= 28 * 1024, `the whole tools/list is ${size} bytes; the budget is 28 KB`);
  for (const t of tools) {
    const [set, annotations] = TABLE[t.name]!;
    assert.equal(TOOLSET_OF[t.name as keyof typeof TOOLSET_OF], set, `${t.name} is in toolset ${set}`);
    assert.deepEqual(t.annotations, annotations, `${t.name} annotations`);
    assert.ok(t.title && t.description, `${t.name} has a title and description`);
    assert.equal(t.inputSchema.type, 'object', `${t.name} input schema is an object`);
    assert.equal(t.outputSchema?.type, 'object', `${t.name} has an output schema`);
    // vm_snapshot {action: "list"} takes no lease (router/args-together.ts says which actions need one).
    if (!['vm_list_templates', 'vm_health', 'vm_capabilities', 'vm_lease_create', 'vm_lease_list', 'vm_snapshot'].includes(t.name)) {
      assert.ok((t.inputSchema.required as string[] | undefined)?.includes('lease_id'), `${t.name} takes lease_id`);
    }
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys((byName.vm_lease_list!.inputSchema.properties as object)).sort(), ['owner', 'status']);
  assert.deepEqual(Object.keys((byName.vm_click!.inputSchema.properties as object)).sort(), ['button', 'coordinate_space', 'count', 'index', 'lease_id', 'modifiers', 'target']);
  const steps = (byName.vm_batch!.inputSchema.properties as any).actions.items.anyOf as { properties: { action: { enum: string[] } } }[];
  assert.deepEqual(steps.map((b) => b.properties.action.enum[0]), ['click', 'type', 'key', 'paste', 'drag', 'scroll', 'wait', 'wait_for']);
});

it('server: a tool outside the chosen toolsets answers POLICY_DENIED naming its set', async () => {
  const r = await s.client.callTool({ name: 'vm_dispatch', arguments: { lease_id: 'x', verb: 'v' } });
  assert.equal(r.isError, true);
  const e = r.structuredContent as { code: string; message: string; hint: string };
  assert.equal(e.code, 'POLICY_DENIED');
  assert.match(e.message, /vm_dispatch is in toolset "admin", which this server does not offer/);
  assert.match(e.hint, /VMHUB_TOOLSETS=lease,screen,input,files,exec,admin/);
  const listed = await all.client.callTool({ name: 'vm_dispatch', arguments: { lease_id: 'x', verb: 'v' } });
  assert.notEqual((listed.structuredContent as { code: string }).code, 'POLICY_DENIED', 'with all sets it is served');
});

it('server: the server identifies itself and gives agents instructions', async () => {
  assert.equal(s.client.getServerVersion()?.name, 'vmhub');
  assert.match(s.client.getInstructions() ?? '', /vm_lease_create/);
});
