import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { loadConfig } from './config.ts';
import { createRouter } from './router/index.ts';
import { TOOL_NAMES } from './tools.ts';
import { DEFAULT_TOOLSETS, resolveToolsets, TOOLSET_OF, TOOLSETS } from './toolsets.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-toolsets-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const host = (toolsets?: readonly string[]) => ({ settings: { denyTools: [], toolsets: toolsets && resolveToolsets(toolsets) } }) as never;

describe('core: toolsets', () => {
  it('every tool is in one set; default, all and lease-always resolve', () => {
    assert.deepEqual(Object.keys(TOOLSET_OF).sort(), [...TOOL_NAMES].sort());
    assert.deepEqual(resolveToolsets(['default']), DEFAULT_TOOLSETS);
    assert.deepEqual(resolveToolsets(['all']), TOOLSETS);
    assert.deepEqual(resolveToolsets(['screen', ' Admin ']), ['lease', 'screen', 'admin']);
  });
  it('config toolsets and VMHUB_TOOLSETS (which wins); an unknown name is a typed config error', () => {
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ toolsets: ['default', 'apps'] }));
    assert.deepEqual(loadConfig({ env: { VMHUB_CONFIG: file } }).toolsets, ['default', 'apps']);
    assert.deepEqual(loadConfig({ env: { VMHUB_CONFIG: file, VMHUB_TOOLSETS: 'all' } }).toolsets, ['all']);
    assert.deepEqual(loadConfig({ env: { XDG_CONFIG_HOME: dir } }).toolsets, ['default']);
    assert.throws(() => loadConfig({ env: { XDG_CONFIG_HOME: dir, VMHUB_TOOLSETS: 'screen,windows' } }), (e: any) => e.code === 'INVALID_REQUEST' && e.source === 'config' && /toolsets \(VMHUB_TOOLSETS\): unknown toolset "windows" \(valid: lease, screen, input, batch, files, exec, apps, admin, default, all\)/.test(e.message));
    writeFileSync(file, JSON.stringify({ toolsets: ['inputs'] }));
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: file } }), /toolsets: unknown toolset "inputs"/);
  });
  it('the router lists only the chosen sets and refuses the others with POLICY_DENIED naming the set', async () => {
    const listed = createRouter(host(['screen'])).listTools().map((t) => t.name);
    assert.deepEqual(listed, TOOL_NAMES.filter((n) => ['lease', 'screen'].includes(TOOLSET_OF[n])));
    assert.equal(createRouter(host()).listTools().length, TOOL_NAMES.length, 'a host naming no sets lists every tool');
    const r = await createRouter(host(['screen'])).call('vm_exec', { lease_id: 'l', run: { shell: 'id' } }, { signal: new AbortController().signal } as never);
    assert.equal(r.isError, true);
    const e = r.structuredContent as { code: string; message: string; details: { toolset: string } };
    assert.equal(e.code, 'POLICY_DENIED');
    assert.equal(e.details.toolset, 'exec');
    assert.match(e.message, /^vm_exec is in toolset "exec", which this server does not offer \(it offers: lease, screen\)/);
  });

  it('register {listTools}: a session\'s tools/list is the chosen sets passed through the server\'s hook', async () => {
    const server = new McpServer({ name: 't', version: '0' }, { capabilities: { tools: {} } });
    createRouter(host(['screen'])).register(server, { listTools: (tools) => tools.map((t) => (t.name === 'vm_screenshot' ? { ...t, _meta: { ui: { resourceUri: 'ui://x' } } } : t)) });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 'c', version: '0' });
    await client.connect(a);
    const tools = (await client.listTools()).tools;
    assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES.filter((n) => ['lease', 'screen'].includes(TOOLSET_OF[n])));
    assert.deepEqual(tools.find((t) => t.name === 'vm_screenshot')?._meta, { ui: { resourceUri: 'ui://x' } });
    assert.equal(tools.find((t) => t.name === 'vm_lease_create')?._meta, undefined);
    await client.close();
  });
});
