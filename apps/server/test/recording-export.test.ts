// A lease's recording exported as ATIF v1.6 and as a Hugging Face datasets folder, through the
// BUILT server over HTTP on the conformance fake desktop, and through `vmhub-server leases export`:
// the ATIF validates against a schema of the RFC's fields (fixtures/atif-v1.6.schema.ts), the tar
// unpacks (system tar) to a folder a small reader loads (JSONL rows parse, every frame named exists
// and is a PNG of the size its row says, one row per step, actors agent/person, the person's
// take-over included); a secret typed with vm_type appears in neither; another principal's lease
// is NOT_FOUND; the CLI writes the same bytes as the API.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { compile, type TSchema } from '@vmhub/core';
import { until } from '@vmhub/test-kit';
import { atifRules, ATIF_V16_SCHEMA } from './fixtures/atif-v1.6.schema.ts';
import { runBin, sandbox, startHttp, type HttpServer, type Sandbox } from './harness.ts';

const TOKEN = 'export-token-7d1f3a';
const OTHER = 'export-other-2c9b4e';
const SECRET = 'sk-live-9f8e7d6c5b4a39281706';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let box: Sandbox;
let server: HttpServer;
let agent: Client;
let lease = '';

const api = (path: string, token = TOKEN, init: RequestInit = {}) => fetch(`${server.base}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) } });
const post = (path: string, body: unknown = {}) => api(path, TOKEN, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
const call = async (name: string, args: Record<string, unknown> = {}) => await agent.callTool({ name, arguments: { lease_id: lease, ...args } }) as any;
const steps = async () => ((await (await api(`/api/leases/${lease}/recording`)).json()) as { steps: any[] }).steps;
const download = async (format: string, token = TOKEN) => { const r = await api(`/api/leases/${lease}/recording?format=${format}`, token); return { r, body: Buffer.from(await r.arrayBuffer()) }; };

before(async () => {
  box = sandbox({ http: { tokens: [{ principal: 'other', token_env: 'VMHUB_TOKEN_OTHER' }] } });
  server = await startHttp(box, { VMHUB_HTTP_TOKEN: TOKEN, VMHUB_TOKEN_OTHER: OTHER });
  agent = new Client({ name: 'export-agent', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  lease = ((await agent.callTool({ name: 'vm_lease_create', arguments: { template: 'fake-desktop' } })).structuredContent as any).lease_id;
  await until(async () => ((await agent.callTool({ name: 'vm_lease_status', arguments: { lease_id: lease, wait_seconds: 2 } })).structuredContent as any).status === 'ready', 'the lease is ready', 20_000);

  // The agent looks, types a secret, clicks; a person takes over, clicks and types, hands back; the agent looks again.
  assert.equal((await call('vm_screenshot')).isError, undefined);
  assert.equal((await call('vm_type', { text: `export API_TOKEN=${SECRET}\n` })).isError, undefined);
  assert.equal((await call('vm_click', { x: 20, y: 30 })).isError, undefined);
  assert.equal((await post(`/api/leases/${lease}/takeover`)).status, 200);
  assert.equal((await post(`/api/leases/${lease}/input`, { type: 'click', x: 40, y: 50 })).status, 200);
  assert.equal((await post(`/api/leases/${lease}/input`, { type: 'type', text: 'by hand' })).status, 200);
  assert.equal((await post(`/api/leases/${lease}/handback`, { note: 'fixed the dialog' })).status, 200);
  assert.equal((await call('vm_screenshot')).isError, undefined);
  // Frames after input are captured off the call's path: wait until every input step has one.
  await until(async () => {
    const s = await steps();
    return s.length >= 8 && s.filter((x) => x.tool === 'input' || x.tool === 'vm_type' || x.tool === 'vm_click').every((x) => typeof x.screenshot === 'string');
  }, 'the frames after input are recorded', 15_000);
});
after(async () => { await agent?.close(); await server?.stop(); box?.cleanup(); });

/** The small reader: unpack the tar with the system's tar and load the folder as a datasets user would. */
function loadHf(tar: Buffer, where: string): { dir: string; rows: any[]; card: string } {
  mkdirSync(where, { recursive: true });
  execFileSync('tar', ['-xf', '-', '-C', where], { input: tar });
  const [folder, ...more] = readdirSync(where);
  assert.equal(more.length, 0, 'one folder in the archive');
  const dir = join(where, folder!);
  const lines = readFileSync(join(dir, 'steps.jsonl'), 'utf8').split('\n');
  assert.equal(lines.pop(), '', 'the JSONL ends with a newline');
  return { dir, rows: lines.map((l) => JSON.parse(l)), card: readFileSync(join(dir, 'README.md'), 'utf8') };
}

describe('recording export: ATIF and Hugging Face datasets', () => {
  it('ATIF: validates against the v1.6 schema, one step per recorded step, frames as image parts, the person as user steps, no secret', async () => {
    const recorded = await steps();
    const { r, body } = await download('atif');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(r.headers.get('content-disposition'), `attachment; filename="vmhub-${lease.slice(0, 8)}-recording.atif.json"`);
    const atif = JSON.parse(body.toString('utf8'));
    const validate = compile(ATIF_V16_SCHEMA as unknown as TSchema);
    assert.equal(validate(atif), true, JSON.stringify(validate.errors?.slice(0, 5)));
    assert.deepEqual(atifRules(atif), []);
    // The validator is not vacuous: what the RFC forbids fails it.
    const user = atif.steps.findIndex((s: any) => s.source === 'user');
    const broken = (change: (t: any) => void) => { const t = structuredClone(atif); change(t); return validate(t); };
    assert.equal(broken((t) => { t.steps[user].tool_calls = []; }), false, 'tool_calls on a user step');
    assert.equal(broken((t) => { t.steps[0].source = 'tool'; }), false, 'an unknown source');
    assert.equal(broken((t) => { t.steps.find((s: any) => s.observation?.results[0].content[1]).observation.results[0].content[1] = { type: 'image' }; }), false, 'an image part without its source');
    assert.equal(broken((t) => { t.schema_version = 'ATIF-v1.4'; }), false);
    assert.deepEqual(atifRules({ steps: [{ step_id: 2 }] }), ['steps[0].step_id is 2, not 1']);
    assert.equal(atif.schema_version, 'ATIF-v1.6');
    assert.equal(atif.session_id, lease);
    assert.equal(atif.steps.length, recorded.length);
    assert.equal(atif.final_metrics.total_steps, recorded.length);
    assert.ok(!body.toString('utf8').includes(SECRET), 'the typed secret is not in the ATIF');

    const typed = atif.steps.find((s: any) => s.tool_calls?.[0]?.function_name === 'vm_type');
    assert.equal(typed.source, 'agent');
    assert.match(typed.tool_calls[0].arguments.text, /API_TOKEN=\*\*\*/);
    const parts = typed.observation.results[0].content;
    assert.equal(parts[0].type, 'text');
    assert.equal(parts[1].type, 'image');
    assert.equal(parts[1].source.media_type, 'image/png');
    const png = Buffer.from(parts[1].source.path.replace(/^data:image\/png;base64,/, ''), 'base64');
    assert.ok(png.subarray(0, 8).equals(PNG), 'the frame after vm_type is a PNG');

    const person = atif.steps.filter((s: any) => s.source === 'user');
    assert.deepEqual(person.map((s: any) => s.extra.vmhub.tool), ['takeover', 'input', 'input', 'handback']);
    assert.ok(person.every((s: any) => s.extra.vmhub.actor === 'person'));
    const click = person.find((s: any) => Array.isArray(s.message));
    assert.match(click.message[0].text, /^the person: input \{"type":"click","x":40,"y":50/);
    assert.equal(click.message[1].type, 'image', 'the frame after the person\'s input');
    assert.match(person.at(-1).message, /note: fixed the dialog/);
    const later = atif.steps.at(-1);
    assert.equal(later.tool_calls[0].function_name, 'vm_screenshot');
    assert.ok(later.extra.vmhub.before_frame_step_id < later.step_id, 'a frame before the last screenshot');
  });

  it('HF: the tar unpacks to a folder the reader loads — rows = steps, frames present as PNGs of their size, actors agent/person, no secret', async () => {
    const recorded = await steps();
    const { r, body } = await download('hf');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/x-tar');
    assert.equal(r.headers.get('content-disposition'), `attachment; filename="vmhub-${lease.slice(0, 8)}-recording-hf.tar"`);
    const { dir, rows, card } = loadHf(body, join(box.dir, 'hf-api'));
    assert.match(card, /^---\nconfigs:\n- config_name: default\n {2}data_files:\n {2}- split: train\n {4}path: steps\.jsonl\n---\n/);
    assert.equal(rows.length, recorded.length, 'one row per step');
    assert.deepEqual(rows.map((row) => row.step), recorded.map((s) => s.seq));
    const columns = Object.keys(rows[0]).sort();
    for (const row of rows) {
      assert.deepEqual(Object.keys(row).sort(), columns, 'every row has every column');
      assert.ok(['agent', 'person'].includes(row.actor), row.actor);
      assert.equal(typeof JSON.parse(row.arguments), 'object');
      for (const side of ['before', 'after'] as const) {
        const path = row[`${side}_frame`];
        if (path === null) continue;
        const file = join(dir, path);
        assert.ok(existsSync(file) && statSync(file).isFile(), `${path} exists`);
        const png = readFileSync(file);
        assert.ok(png.subarray(0, 8).equals(PNG), `${path} is a PNG`);
        assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [row[`${side}_width`], row[`${side}_height`]], `${path}: IHDR size = the row's`);
      }
    }
    assert.deepEqual(rows.filter((row) => row.actor === 'person').map((row) => row.action), ['takeover', 'input', 'input', 'handback']);
    const input = rows.find((row) => row.actor === 'person' && row.action === 'input');
    assert.ok(input.after_frame && input.before_frame, 'the person\'s input has its frames before and after');
    assert.ok(rows.filter((row) => row.after_frame).length >= 4, 'frames after the screenshots and inputs');
    assert.equal(rows[0].before_frame, null, 'nothing was seen before the first step');
    const typed = rows.find((row) => row.action === 'vm_type');
    assert.match(JSON.parse(typed.arguments).text, /API_TOKEN=\*\*\*/);
    for (const name of ['steps.jsonl', 'README.md']) assert.ok(!readFileSync(join(dir, name), 'utf8').includes(SECRET), `no secret in ${name}`);
    const images = readdirSync(join(dir, 'images'));
    assert.deepEqual(images.sort(), [...new Set(rows.flatMap((row) => [row.before_frame, row.after_frame]).filter(Boolean).map((p: string) => p.slice('images/'.length)))].sort(), 'every image is named by a row, once');
  });

  it('another principal\'s lease is NOT_FOUND in every format; a bad format or since with an export is 400', async () => {
    for (const format of ['atif', 'hf']) {
      const { r, body } = await download(format, OTHER);
      assert.equal(r.status, 404, format);
      assert.equal(JSON.parse(body.toString()).error.code, 'NOT_FOUND');
    }
    const bad = await api(`/api/leases/${lease}/recording?format=parquet`);
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as any).error.message, /format must be json, html, atif or hf/);
    assert.equal((await api(`/api/leases/${lease}/recording?format=atif&since=2`)).status, 400);
  });

  it('CLI: leases export writes the same bytes as the API; bad arguments exit 2, an unknown lease 1, and write nothing', async () => {
    for (const format of ['atif', 'hf']) {
      const { body } = await download(format);
      const out = join(box.dir, `cli.${format}`);
      const run = await runBin(box, ['leases', 'export', lease, '--format', format, '--out', out], {}, 60_000);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`exported as ${format} to ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.ok(readFileSync(out).equals(body), `${format}: the CLI's file is the API's`);
    }
    const folder = join(box.dir, 'exports');
    mkdirSync(folder);
    assert.equal((await runBin(box, ['leases', 'export', lease, '--format', 'hf', '--out', folder])).code, 0);
    assert.deepEqual(readdirSync(folder), [`vmhub-${lease.slice(0, 8)}-recording-hf.tar`], 'a folder gets the file under its own name');
    const bad = await runBin(box, ['leases', 'export', lease, '--format', 'csv', '--out', join(box.dir, 'x')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--format must be atif or hf, not "csv"/);
    const unknown = await runBin(box, ['leases', 'export', '00000000-0000-4000-8000-000000000000', '--format', 'atif', '--out', join(box.dir, 'y')]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /NOT_FOUND/);
    assert.ok(!existsSync(join(box.dir, 'x')) && !existsSync(join(box.dir, 'y')), 'nothing written');
  });
});
