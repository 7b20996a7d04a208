/**
 * The vmhub-server command line: serve MCP on stdio or HTTP, or manage golden images.
 *   vmhub-server                       serve MCP over stdio
 *   vmhub-server --http                serve MCP over Streamable HTTP at /mcp (config `http`)
 *   vmhub-server golden build <name>   build a golden image (debian-x11, tiny-console)
 *   vmhub-server golden status [name]  show golden images and whether they are built
 *   vmhub-server --version | --help
 */
import { VERSION } from './catalog.ts';
import { goldenCommand } from './golden.ts';
import { log } from './log.ts';
import { parseArgs } from 'node:util';
import { VmhubError } from '@vmhub/core';
import { serveHttp } from './http.ts';
import { createVmhubHub, createVmhubServer } from './server.ts';
import { LineStdioTransport } from './stdio-transport.ts';

/** Largest JSON-RPC message accepted on stdin (a base64 file of files.max_bytes fits). */
const MAX_MESSAGE_BYTES = 96 * 1024 * 1024;

const HELP = `vmhub-server ${VERSION}
Usage:
  vmhub-server                        serve the vm_* MCP tools over stdio
  vmhub-server --http [--host H] [--port P]
                                      serve them over Streamable HTTP at /mcp (bearer token from
                                      $VMHUB_HTTP_TOKEN; binds 127.0.0.1 by default)
  vmhub-server golden build <name>    build a golden image (names: see golden status)
  vmhub-server golden status [name]   list golden images and whether they are built
  vmhub-server --version | --help
Configuration: env (VMHUB_CONFIG, VMHUB_DB, VMHUB_INSTANCE, ...) — see docs/configuration.md`;

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) { process.stdout.write(HELP + '\n'); return 0; }
  if (argv.includes('--version')) { process.stdout.write(VERSION + '\n'); return 0; }
  if (argv[0] === 'golden') return goldenCommand(argv.slice(1));
  if (argv[0] === '--http') return serveHttpCommand(argv.slice(1));
  if (argv.length > 0) { process.stderr.write(`unknown arguments: ${argv.join(' ')}\n${HELP}\n`); return 2; }

  const server = await createVmhubServer();
  // The SDK's stdio transport drops the connection on a line over 10 MiB and copies large lines
  // quadratically; ours takes large requests in one copy, so an oversized argument reaches
  // validation and gets a typed INVALID_REQUEST, and a vm_put_file of files.max_bytes is fast.
  const transport = new LineStdioTransport({ maxLineBytes: MAX_MESSAGE_BYTES });
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log('info', 'vmhub server stopping', { why });
    const force = setTimeout(() => process.exit(0), 5000);
    force.unref();
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.stdin.on('end', () => void stop('stdin closed'));
  transport.onclose = () => void stop('transport closed');
  await server.mcp.connect(transport);
  return -1;
}

async function serveHttpCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { host: { type: 'string' }, port: { type: 'string' } }, strict: true });
  const hub = createVmhubHub();
  const http = hub.config.http;
  const port = values.port !== undefined ? Number(values.port) : http.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) { process.stderr.write(`--port must be 0..65535\n`); return 2; }
  const { server, url } = await serveHttp(hub, { host: values.host ?? http.host, port, token: process.env[http.token_env] || undefined, allowNoAuth: http.allow_no_auth, allowedOrigins: http.allowed_origins });
  process.stderr.write(`vmhub MCP over HTTP at ${url}\n`);
  void hub.runtime().catch(() => undefined);
  const stop = async () => { server.close(); await hub.close(); process.exit(0); };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => { if (code >= 0) process.exit(code); },
  (err) => {
    // A configuration problem is a message for the operator; anything else gets its stack.
    process.stderr.write(VmhubError.is(err) ? `${err.message}\n` : `[vmhub] fatal: ${(err as Error).stack ?? err}\n`);
    process.exit(VmhubError.is(err) ? 2 : 1);
  },
);
