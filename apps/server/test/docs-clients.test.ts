/**
 * The client configurations in examples/clients/ and README.md's "Use it from your MCP client"
 * are real: every file parses (JSON, or `sh -n`), every server entry is one its client accepts
 * (Claude Desktop and Cursor: mcpServers.{command,args} or {url,headers}; opencode:
 * mcp.{type:"local",command[]} or {type:"remote",url,headers}), and each points at something
 * that exists: the checkout's bin (this package's `bin`, built), the published package's name,
 * the HTTP endpoint (/mcp on the default port) with a Bearer Authorization header. The Claude
 * Code scripts are also run by the real CLI (claude-code-cli.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { loadConfig } from '@vmhub/core/config';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLES = join(ROOT, 'examples/clients');
const pkg = JSON.parse(readFileSync(join(ROOT, 'apps/server/package.json'), 'utf8')) as { name: string; bin: Record<string, string> };
const BIN_PATH = join('apps/server', pkg.bin['vmhub-server']!);
const NODE = '/ABSOLUTE/PATH/TO/node';
const CHECKOUT = '/ABSOLUTE/PATH/TO/vmhub/';
const PORT = loadConfig({ env: {} }).http.port;

/** A stdio command line: the checkout's bin, the published package by npx, or the installed bin. */
function checkCommand(argv: string[], where: string): void {
  if (argv[0] === NODE) {
    assert.equal(argv.length, 2, `${where}: node and the bin, nothing else`);
    assert.ok(argv[1]!.startsWith(CHECKOUT), `${where}: ${argv[1]} is not under ${CHECKOUT}`);
    assert.equal(argv[1]!.slice(CHECKOUT.length), BIN_PATH, `${where}: the bin is ${BIN_PATH}`);
    assert.ok(existsSync(join(ROOT, BIN_PATH)), `${where}: ${BIN_PATH} does not exist: build first`);
  } else if (argv[0] === 'npx' && argv.includes('mcp-remote')) {
    const rest = argv.slice(argv.indexOf('mcp-remote') + 1);
    checkUrl(rest[0]!, where);
    assert.equal(rest[1], '--header', `${where}: mcp-remote takes --header`);
    assert.match(rest[2]!, /^Authorization:\$\{[A-Z_]+\}$/, `${where}: the header, its value from env (no space in args)`);
  } else if (argv[0] === 'npx') {
    assert.deepEqual(argv.slice(1), ['-y', pkg.name], `${where}: npx -y ${pkg.name}`);
  } else {
    assert.deepEqual(argv, ['vmhub-server'], `${where}: an unknown command`);
  }
}

function checkUrl(url: string, where: string): void {
  const u = new URL(url);
  assert.equal(u.pathname, '/mcp', `${where}: the MCP endpoint is /mcp`);
  assert.equal(Number(u.port), PORT, `${where}: the default port is ${PORT}`);
}

function checkHeaders(headers: Record<string, string> | undefined, where: string): void {
  assert.match(headers?.Authorization ?? '', /^Bearer \S+$/, `${where}: Authorization: Bearer <token>`);
}

/** Every vmhub server entry of a client config, checked by its client's shape. */
function checkConfig(config: any, where: string): number {
  let n = 0;
  for (const [name, s] of Object.entries<any>(config.mcpServers ?? {})) {
    n++;
    if (s.url !== undefined) { checkUrl(s.url, `${where} ${name}`); checkHeaders(s.headers, `${where} ${name}`); continue; }
    assert.equal(typeof s.command, 'string', `${where} ${name}: command`);
    checkCommand([s.command, ...(s.args ?? [])], `${where} ${name}`);
  }
  for (const [name, s] of Object.entries<any>(config.mcp ?? {})) {
    n++;
    if (s.type === 'remote') { checkUrl(s.url, `${where} ${name}`); checkHeaders(s.headers, `${where} ${name}`); assert.equal(s.oauth, false, `${where}: oauth off (bearer token)`); continue; }
    assert.equal(s.type, 'local', `${where} ${name}: type local or remote`);
    assert.ok(Array.isArray(s.command), `${where} ${name}: opencode's command is one array`);
    checkCommand(s.command, `${where} ${name}`);
  }
  return n;
}

describe('docs: MCP client configurations point at real things', () => {
  const files = readdirSync(EXAMPLES);

  it('examples/clients has each client over stdio from a checkout and over HTTP', () => {
    for (const f of ['claude_desktop_config.checkout.json', 'claude_desktop_config.http.json', 'cursor-mcp.checkout.json', 'cursor-mcp.http.json', 'opencode.checkout.json', 'opencode.http.json', 'claude-code-checkout.sh', 'claude-code-http.sh']) {
      assert.ok(files.includes(f), `examples/clients/${f} is missing`);
    }
  });

  for (const f of files.filter((f) => f.endsWith('.json'))) {
    it(`examples/clients/${f} parses, and its server entry is real`, () => {
      assert.equal(checkConfig(JSON.parse(readFileSync(join(EXAMPLES, f), 'utf8')), f), 1);
    });
  }

  for (const f of files.filter((f) => f.endsWith('.sh'))) {
    it(`examples/clients/${f} is valid sh, and registers vmhub with claude mcp add`, () => {
      const text = readFileSync(join(EXAMPLES, f), 'utf8');
      const r = spawnSync('sh', ['-n', join(EXAMPLES, f)], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(text, /^claude mcp add --scope user (--transport http )?vmhub /m);
      if (f.includes('checkout')) assert.ok(text.includes(BIN_PATH), `${f} names ${BIN_PATH}`);
      if (f.includes('http')) assert.match(text, /--header "Authorization: Bearer \$\{VMHUB_HTTP_TOKEN/);
    });
  }

  it("README's client configurations parse and are real", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Use it from your MCP client'), readme.indexOf('\n## ', readme.indexOf('## Use it from your MCP client') + 5));
    let n = 0;
    for (const m of section.matchAll(/```json\n([\s\S]*?)```|`(\{ "m[^`]*\})`/g)) n += checkConfig(JSON.parse(m[1] ?? m[2]!), `README.md: ${(m[1] ?? m[2]!).slice(0, 40)}`);
    assert.ok(n >= 4, `README's section has the stdio and HTTP configs (found ${n})`);
    for (const m of section.matchAll(/^claude mcp add .*$/gm)) assert.match(m[0], /^claude mcp add --scope user (--transport http vmhub http:\/\/127\.0\.0\.1:8787\/mcp --header "Authorization: Bearer \$VMHUB_HTTP_TOKEN"|vmhub -- )/);
    for (const m of section.matchAll(/examples\/clients\/([\w.-]+\.(?:json|sh))/g)) assert.ok(files.includes(m[1]!), `README names examples/clients/${m[1]}`);
  });
});
