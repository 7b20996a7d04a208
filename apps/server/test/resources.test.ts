// MCP resources and the prompt (issue 34.4) through the BUILT server over HTTP, two principals, on
// the fake desktop: vm_lease_create links the lease's recording (resource_link); the recording and
// its frames are listed for their principal only, read back (JSON; a PNG of the step's screen),
// and another principal reading them gets MCP's resource-not-found exactly as for an unknown
// lease; the vm_operator prompt teaches the loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startHttp } from './harness.ts';
import { clientReady, httpSuite } from './http-harness.ts';

const TOKENS = { alice: 'tok-alice-res-7c1d', bob: 'tok-bob-res-2e9a' };
const suite = httpSuite((box) => startHttp(box, { HOME: box.dir, VMHUB_TOKEN_ALICE: TOKENS.alice, VMHUB_TOKEN_BOB: TOKENS.bob }), {
  http: { tokens: [{ principal: 'alice', token_env: 'VMHUB_TOKEN_ALICE' }, { principal: 'bob', token_env: 'VMHUB_TOKEN_BOB' }] },
});

const ok = async (c: Client, name: string, args: Record<string, unknown> = {}): Promise<any> => {
  const r = await c.callTool({ name, arguments: args }) as any;
  assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.structuredContent)}`);
  return r;
};
// Resource-not-found: -32602 naming the URI (the SDK v2, every revision), -32002 from older servers.
const notFound = (err: any) => err?.code === -32602 || err?.code === -32002;

describe('resources: a lease\'s recording and frames, one principal\'s own; the vm_operator prompt', () => {
  let alice: Client;
  let bob: Client;
  let lease = '';

  it('vm_lease_create links the recording; after calls, the principal lists it and its frames — the other principal does not', async () => {
    alice = await suite.client(TOKENS.alice, 'alice');
    bob = await suite.client(TOKENS.bob, 'bob');
    const made = await ok(alice, 'vm_lease_create', { template: 'fake-desktop' });
    lease = made.structuredContent.lease_id;
    const link = made.content.find((c: any) => c.type === 'resource_link');
    assert.deepEqual([link?.uri, link?.mimeType], [`vmhub://leases/${lease}/recording`, 'application/json']);
    await clientReady(alice, lease);
    await ok(alice, 'vm_screenshot', { lease_id: lease });
    await ok(alice, 'vm_click', { lease_id: lease, x: 100, y: 100, coordinate_space: 'screen' });
    const bobs = (await ok(bob, 'vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id;
    await clientReady(bob, bobs);
    await ok(bob, 'vm_screenshot', { lease_id: bobs });

    let listed: string[] = [];
    for (let i = 0; i < 40 && !listed.some((u) => u.includes(`${lease}/screenshots/`)); i++) {
      listed = (await alice.listResources()).resources.map((r) => r.uri);
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(listed.includes(`vmhub://leases/${lease}/recording`), listed.join(' '));
    assert.ok(listed.some((u) => u.startsWith(`vmhub://leases/${lease}/screenshots/`)), 'its frames are listed');
    assert.ok(!listed.some((u) => u.includes(bobs)), 'none of bob\'s');
    const theirs = (await bob.listResources()).resources.map((r) => r.uri);
    assert.ok(!theirs.some((u) => u.includes(lease)), 'bob lists none of alice\'s');
    const templates = (await alice.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
    assert.deepEqual(templates, ['vmhub://leases/{lease_id}/live', 'vmhub://leases/{lease_id}/recording', 'vmhub://leases/{lease_id}/screenshots/{seq}']);
  });

  it('reads: the recording as JSON naming its frames, a frame as the PNG of that step; another principal\'s is not found', async () => {
    const rec = (await alice.readResource({ uri: `vmhub://leases/${lease}/recording` })).contents[0] as any;
    assert.equal(rec.mimeType, 'application/json');
    const body = JSON.parse(rec.text);
    assert.equal(body.lease_id, lease);
    const shot = body.steps.find((s: any) => s.tool === 'vm_screenshot');
    assert.ok(shot, 'the screenshot step is recorded');
    assert.equal(shot.screenshot, `vmhub://leases/${lease}/screenshots/${shot.seq}`);
    const frame = (await alice.readResource({ uri: shot.screenshot })).contents[0] as any;
    assert.equal(frame.mimeType, 'image/png');
    const meta = await sharp(Buffer.from(frame.blob, 'base64')).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 1024, 768], 'the fake desktop\'s screen');

    await assert.rejects(bob.readResource({ uri: `vmhub://leases/${lease}/recording` }), notFound);
    await assert.rejects(bob.readResource({ uri: shot.screenshot }), notFound);
    await assert.rejects(alice.readResource({ uri: 'vmhub://leases/00000000-0000-4000-8000-000000000000/recording' }), notFound);
    await assert.rejects(alice.readResource({ uri: `vmhub://leases/${lease}/screenshots/99999` }), notFound);
  });

  it('the vm_operator prompt teaches the loop, briefly', async () => {
    assert.ok((await alice.listPrompts()).prompts.some((p) => p.name === 'vm_operator'));
    const text = ((await alice.getPrompt({ name: 'vm_operator' })).messages[0]!.content as any).text as string;
    for (const tool of ['vm_lease_create', 'vm_lease_status', 'vm_screenshot', 'vm_wait', 'vm_lease_release']) assert.match(text, new RegExp(tool));
    assert.ok(text.length < 1200, `kept short: ${text.length} characters`);
    await ok(alice, 'vm_lease_release', { lease_id: lease });
  });
});
