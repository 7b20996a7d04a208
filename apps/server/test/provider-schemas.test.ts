import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { connect, sandbox, type Sandbox, type Session } from './harness.ts';
import { installClient } from './clients.ts';
import { anthropicStrict, fieldPaths, gemini, openaiStrict } from './provider-schemas.ts';

/** Every tool through OpenAI strict mode, Gemini and Anthropic strict tool use: none refused, none loses a field or a description. */
describe('server: tools/list as model providers take it (issue 28.2)', () => {
  let box: Sandbox;
  let s: Session;
  let tools: { name: string; inputSchema: Record<string, any> }[];
  before(async () => { box = sandbox(); s = await connect(box, { VMHUB_TOOLSETS: 'all' }); tools = (await s.client.listTools()).tools as never; });
  after(async () => { await s.close(); box.cleanup(); });

  it('every parameter has a short description, and each exclusive choice is stated in the schema', () => {
    assert.equal(tools.length, 32);
    let n = 0;
    for (const t of tools) {
      for (const [k, v] of Object.entries<any>(t.inputSchema.properties ?? {})) {
        n++;
        assert.ok(typeof v.description === 'string' && v.description.length > 0 && v.description.length <= 120, `${t.name}.${k} has a short description`);
        for (const branch of v.anyOf ?? []) {
          if (branch.type !== 'object' || t.name === 'vm_batch') continue;
          assert.equal(branch.additionalProperties, false, `${t.name}.${k}: each form is closed`);
          assert.deepEqual(Object.keys(branch.properties).sort(), [...branch.required].sort(), `${t.name}.${k}: each form's fields are required`);
          for (const [f, fv] of Object.entries<any>(branch.properties)) assert.ok(fv.description, `${t.name}.${k}.${f} has a description`);
        }
      }
    }
    assert.ok(n >= 90, `${n} parameters`);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
    const forms = (schema: any) => schema.anyOf.map((b: any) => b.required.join(','));
    assert.deepEqual(forms(byName.vm_exec!.properties.run), ['command', 'shell', 'job']);
    assert.deepEqual(forms(byName.vm_click!.properties.target), ['x,y', 'window,x,y', 'text', 'mark', 'ref']);
    assert.equal(byName.vm_dispatch!.properties.args.type, 'string');
  });

  for (const [provider, convert] of [['OpenAI strict (@openai/agents)', openaiStrict], ['Gemini', gemini], ['Anthropic strict', anthropicStrict]] as const) {
    it(`${provider}: every tool converts, keeping every field and description`, () => {
      for (const t of tools) {
        let converted: Record<string, any> | undefined;
        assert.doesNotThrow(() => { converted = convert(t.inputSchema); }, `${provider} takes ${t.name}`);
        if (converted === undefined) { assert.equal(Object.keys(t.inputSchema.properties ?? {}).length, 0, `${t.name} has no parameters`); continue; }
        const before = fieldPaths(t.inputSchema);
        const kept = fieldPaths(converted);
        assert.deepEqual([...kept.keys()].sort(), [...before.keys()].sort(), `${provider}: ${t.name} keeps every field`);
        for (const [path, description] of before) if (description) assert.ok(kept.get(path)?.startsWith(description), `${provider}: ${t.name}.${path} keeps its description`);
      }
    });
  }

  it('the real @openai/agents-core (pinned) converts every tool in strict mode, losing nothing', async (t) => {
    const got = await installClient('openai-agents'); // the install the installed-client session uses (clients.ts)
    if (got.skip !== undefined) return t.skip(got.skip);
    const agents = await import(pathToFileURL(join(got.prefix, 'node_modules', '@openai', 'agents-core', 'dist', 'index.mjs')).href);
    for (const tool of tools) {
      // What MCPServer + getAllMcpTools({convertSchemasToStrict: true}) does with each listed tool.
      const converted = agents.mcpToFunctionTool(tool, { name: 'vmhub' }, true);
      assert.equal(converted.strict, true, `${tool.name} stays strict (no fallback)`);
      assert.deepEqual([...fieldPaths(converted.parameters).keys()].sort(), [...fieldPaths(tool.inputSchema).keys()].sort(), `${tool.name} keeps every field`);
      assert.deepEqual(converted.parameters, openaiStrict(tool.inputSchema), `${tool.name}: the model converter agrees with the SDK`);
    }
  });

  it('the converters refuse what the providers refuse (the forms vmhub used to publish)', () => {
    const open = { type: 'object', properties: { args: { type: 'object', patternProperties: { '^(.*)$': {} } } }, additionalProperties: false };
    assert.throws(() => openaiStrict(open), /patternProperties/);
    assert.throws(() => gemini(open), /patternProperties/);
    assert.throws(() => anthropicStrict({ type: 'object', properties: { args: {} } }), /must have a type/);
    const exclusive = { type: 'object', properties: { scale: { type: 'number', exclusiveMinimum: 0 } }, additionalProperties: false };
    assert.throws(() => gemini(exclusive), /exclusiveMinimum/);
    const rootOneOf = { type: 'object', properties: { x: { type: 'number' } }, oneOf: [{ required: ['x'] }], additionalProperties: false };
    assert.throws(() => openaiStrict(rootOneOf), /oneOf/);
    assert.throws(() => gemini(rootOneOf), /oneOf/);
    // A batch step that declares only `action` loses x, y and text in strict mode.
    const bare = { type: 'object', properties: { actions: { type: 'array', items: { type: 'object', properties: { action: { type: 'string' } } } } }, required: ['actions'], additionalProperties: false };
    const steps = openaiStrict(bare).properties.actions.items;
    assert.deepEqual(Object.keys(steps.properties), ['action']);
    assert.equal(steps.additionalProperties, false, 'strict mode closes the step: x, y, text cannot be sent');
    const optionalInBranch = { type: 'object', properties: { t: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }] } }, additionalProperties: false };
    assert.throws(() => openaiStrict(optionalInBranch), /optional non-null/);
  });
});
