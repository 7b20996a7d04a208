// tools/list equals the recorded schemas, on the wire and through the SDK client, for both
// versions; the recorded files equal what the generator derives from Windows-MCP's source (when
// the source mirror is on this machine); and a few entries are spelled out by hand so the
// FastMCP rules are pinned independently of the generator.
import { deepStrictEqual, equal, ok } from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startStandin, VERSION_INFO } from '../src/index.ts';
import { connectTo, KEY } from './client.ts';

const fixture = (v: string) => JSON.parse(readFileSync(fileURLToPath(new URL(`../src/schemas/${v}.json`, import.meta.url)), 'utf8')).tools;

for (const version of ['0.5.8', '0.6.2', '0.8.2'] as const) {
  test(`${version}: tools/list on the wire is the recorded file, byte for byte in JSON terms`, async () => {
    const s = await startStandin({ version, authKey: KEY });
    try {
      const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const init = await fetch(s.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
      const sid = init.headers.get('mcp-session-id')!;
      const initBody = parseSse(await init.text());
      deepStrictEqual(initBody.result.serverInfo, { name: 'windows-mcp', version: VERSION_INFO[version].fastmcp });
      await fetch(s.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      const list = await fetch(s.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
      deepStrictEqual(parseSse(await list.text()).result.tools, fixture(version));
    } finally {
      await s.close();
    }
  });

  test(`${version}: tools/list through the SDK client keeps every recorded field`, async () => {
    const s = await startStandin({ version, authKey: KEY });
    const c = await connectTo(s);
    try {
      deepStrictEqual((await c.listTools()).tools, fixture(version));
    } finally {
      await c.close();
      await s.close();
    }
  });
}

function parseSse(text: string) {
  const data = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
  return JSON.parse(data.length ? data[data.length - 1] : text);
}

test('the names are the published ones: the -Tool set in 0.5.8, Shell in 0.6.2, the unsuffixed set in 0.8.2', () => {
  deepStrictEqual(fixture('0.6.2').map((t: { name: string }) => t.name), ['App', 'Shell', 'Snapshot', 'Click', 'Type', 'Scroll', 'Move', 'Shortcut', 'Wait', 'Scrape', 'MultiSelect', 'MultiEdit']);
  deepStrictEqual(fixture('0.5.8').map((t: { name: string }) => t.name), ['App-Tool', 'Powershell-Tool', 'State-Tool', 'Click-Tool', 'Type-Tool', 'Scroll-Tool', 'Drag-Tool', 'Move-Tool', 'Shortcut-Tool', 'Wait-Tool', 'Scrape-Tool']);
  deepStrictEqual(fixture('0.8.2').map((t: { name: string }) => t.name), ['App', 'PowerShell', 'FileSystem', 'Snapshot', 'Screenshot', 'Click', 'Type', 'Scroll', 'Move', 'Shortcut', 'Wait', 'WaitFor', 'Scrape', 'MultiSelect', 'MultiEdit', 'Clipboard', 'Process', 'Notification', 'Registry']);
});

test('FastMCP rules, spelled out: 0.8.2 Click (fastmcp 3.4.2) and 0.5.8 Scroll-Tool (fastmcp 2.14.2)', () => {
  const click = fixture('0.8.2').find((t: { name: string }) => t.name === 'Click');
  deepStrictEqual(click.inputSchema, {
    type: 'object',
    properties: {
      loc: { anyOf: [{ items: { type: 'integer' }, type: 'array' }, { type: 'string' }, { type: 'null' }], default: null },
      label: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null },
      button: { enum: ['left', 'right', 'middle'], type: 'string', default: 'left' },
      clicks: { type: 'integer', default: 1 },
    },
    additionalProperties: false, // 3.x compress_schema keeps it
  });
  deepStrictEqual(click.outputSchema, { type: 'object', properties: { result: { type: 'string' } }, required: ['result'], 'x-fastmcp-wrap-result': true });
  deepStrictEqual(click._meta, { fastmcp: { tags: [] } });
  equal(click.title, 'Click');
  const scroll = fixture('0.5.8').find((t: { name: string }) => t.name === 'Scroll-Tool');
  deepStrictEqual(scroll.inputSchema, {
    type: 'object', // no additionalProperties: 2.x prunes it; no required: every parameter has a default
    properties: {
      loc: { items: { type: 'integer' }, type: 'array', default: null }, // `list[int]=None`: no anyOf, the annotation has no None
      type: { enum: ['horizontal', 'vertical'], type: 'string', default: 'vertical' },
      direction: { enum: ['up', 'down', 'left', 'right'], type: 'string', default: 'down' },
      wheel_times: { type: 'integer', default: 1 },
    },
  });
  deepStrictEqual(scroll._meta, { _fastmcp: { tags: [] } });
  equal(scroll.title, 'Scroll Tool');
  // no return annotation → no outputSchema
  equal(fixture('0.5.8').find((t: { name: string }) => t.name === 'State-Tool').outputSchema, undefined);
  equal(fixture('0.8.2').find((t: { name: string }) => t.name === 'Snapshot').outputSchema, undefined);
  // Annotated[str, Field(description=…)] carries the description
  equal(fixture('0.8.2').find((t: { name: string }) => t.name === 'Notification').inputSchema.properties.title.description, 'The title/heading of the toast notification.');
});

// The mirrors of the Windows-MCP history `fetch` brought onto this machine (not in CI).
const MIRRORS: Record<string, { git: string; commit: string; major: string; files: string[] }> = {
  '0.8.2': { git: '/work/.mirror/watsonjeroen16-png+Windows-MCP/repo', commit: VERSION_INFO['0.8.2'].commit, major: '3', files: ['app', 'shell', 'filesystem', 'snapshot', 'input', 'scrape', 'multi', 'clipboard', 'process', 'notification', 'registry'].map((f) => `src/windows_mcp/tools/${f}.py`) },
  '0.5.8': { git: '/work/.mirror/David-Martel+Windows-MCP/repo', commit: VERSION_INFO['0.5.8'].commit, major: '2', files: ['src/windows_mcp/__main__.py'] },
  '0.6.2': { git: '/work/.mirror/David-Martel+Windows-MCP/repo', commit: VERSION_INFO['0.6.2'].commit, major: '2', files: ['src/windows_mcp/__main__.py'] },
};
for (const [version, m] of Object.entries(MIRRORS)) {
  test(`${version}: the recorded file is what the generator derives from the source at ${m.commit.slice(0, 7)}`, { skip: !existsSync(m.git) && 'the Windows-MCP source mirror is not on this machine' }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'standin-schemas-'));
    try {
      const out = join(dir, `${version}.json`);
      execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/extract-schemas.mjs', import.meta.url)), m.git, m.commit, m.major, out, ...m.files]);
      deepStrictEqual(JSON.parse(readFileSync(out, 'utf8')).tools, fixture(version));
      ok(fixture(version).length > 10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
