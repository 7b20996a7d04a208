/**
 * The vmhub-server command line: serve MCP on stdio or HTTP, or manage golden images.
 *   vmhub-server                       serve MCP over stdio
 *   vmhub-server --http                serve MCP over Streamable HTTP at /mcp (config `http`)
 *   vmhub-server golden build <name>   build a golden image (debian-x11, tiny-console)
 *   vmhub-server golden status [name]  show golden images and whether they are built
 *   vmhub-server leases list|show|release|renew|ssh|export   find, end, enter and export leases (leases-cli.ts)
 *   vmhub-server workspaces list|show|rm          see and delete workspaces (workspaces-cli.ts)
 *   vmhub-server doctor                check what each template needs (doctor/)
 *   vmhub-server --version | --help
 */
import { VERSION } from './catalog.ts';
import { docPath } from './docs-path.ts';
import { exitQuietlyOnEpipe } from './epipe.ts';
import { goldenCommand } from './golden.ts';
import { log } from './log.ts';
import { parseArgs } from 'node:util';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { VmhubError } from '@vmhub/core';
import { loadConfig } from '@vmhub/core/config';
import { principalTokens, serveHttp } from './http.ts';
import { createVmhubHub, createVmhubServer } from './server.ts';
import { LineStdioTransport } from './stdio-transport.ts';
import { checkStoreTarget } from './store-target.ts';

/** Largest JSON-RPC message accepted on stdin (a base64 file of files.max_bytes fits). */
const MAX_MESSAGE_BYTES = 96 * 1024 * 1024;

/** Built on demand: the docs' path is where this install put the package. */
const help = (): string => `vmhub-server ${VERSION}
Usage:
  vmhub-server                        serve the vm_* MCP tools over stdio
  vmhub-server --http [--host H] [--port P]
                                      serve them over Streamable HTTP at /mcp (bearer tokens from
                                      $VMHUB_HTTP_TOKEN and http.tokens; SIGHUP re-reads the
                                      tokens; binds 127.0.0.1 by default)
  vmhub-server golden build <name>    build a golden image (names: see golden status)
  vmhub-server golden status [name]   list golden images and whether they are built
  vmhub-server leases list [--all] [--status s] [--owner o] [--json]
                                      open leases of every principal (--all: ended ones too;
                                      --status: live or one status), newest first
  vmhub-server leases show <id> [--json]
  vmhub-server leases release <id>    end a lease and destroy its machine
  vmhub-server leases renew <id> [--ttl seconds]
  vmhub-server leases ssh <id> [--principal p] [-- command…]
                                      a shell (or the command) on the lease's machine as its
                                      user, through this host; the lease's principal only
  vmhub-server leases export <id> --format atif|hf [--out PATH|-]
                                      the lease's recording as ATIF JSON or a Hugging Face
                                      datasets tar (the API's ?format=atif|hf)
  vmhub-server workspaces list [--principal p] [--json]
  vmhub-server workspaces show|rm <name|id> [--principal p] [--json]
                                      every principal's workspaces; rm deletes one (the only
                                      way besides the dashboard: no agent tool deletes one)
  vmhub-server doctor [--json]        check Node, store, reaper, providers, templates and goldens;
                                      each problem with its fix (exit 1 when a template is unusable)
  vmhub-server --version | --help
Configuration: env (VMHUB_CONFIG, VMHUB_DB, VMHUB_INSTANCE, VMHUB_PLUGINS, ...) and a JSON file
(VMHUB_CONFIG, else ~/.config/vmhub/config.json); every key: ${docPath('configuration.md')}
Docs (installed with this package): ${docPath()}
  configuration.md  agent-tools.md  security.md  reaper.md  golden-images.md  setup-proxmox.md
  vnc.md  conformance.md (writing a plugin)  adapters/<id>.md  providers/<id>.md
Extra plugins: VMHUB_PLUGINS=<package name, directory or entry file>; with npx:
  npx -y -p @vmhub/server -p my-adapter vmhub-server`;

/** A command-line mistake: one line on stderr, exit 2, no stack. */
class UsageError extends Error {}

interface Command {
  http: boolean;
  host?: string;
  port?: string;
}

function parseCommand(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { http: { type: 'boolean' }, host: { type: 'string' }, port: { type: 'string' } }, strict: true, allowPositionals: false });
  } catch (err) {
    throw new UsageError(usageMessage(err as Error & { code?: string }));
  }
  const { http, host, port } = parsed.values;
  if (!http && (host !== undefined || port !== undefined)) throw new UsageError('--host and --port apply to --http');
  return { http: http === true, host, port };
}

function usageMessage(err: Error & { code?: string }): string {
  const option = /'(-[^' ]*)/.exec(err.message)?.[1];
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': return `unknown option ${option ?? err.message}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': return `${option ?? 'an option'} ${/argument missing/.test(err.message) ? 'needs a value' : 'takes no value'}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': return `unexpected argument ${/'([^']*)'/.exec(err.message)?.[1] ?? ''}`.trim();
    default: return err.message.split('\n')[0]!;
  }
}

async function main(argv: string[]): Promise<number> {
  // Every command but the servers prints and ends: a reader that stops early (| head) ends it quietly.
  // What follows `--` (leases ssh <id> -- cmd --help) is another program's, never our options.
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (['golden', 'leases', 'workspaces', 'doctor'].includes(argv[0]!) || own.some((a) => ['--help', '-h', '--version'].includes(a))) exitQuietlyOnEpipe();
  if (own.includes('--help') || own.includes('-h')) { process.stdout.write(help() + '\n'); return 0; }
  if (own.includes('--version')) { process.stdout.write(VERSION + '\n'); return 0; }
  // A golden image is for every user inside its machines (the desktop user reads its files):
  // built under the usual umask, not the server's private 077 (bin.ts).
  if (argv[0] === 'golden') { process.umask(0o022); return goldenCommand(argv.slice(1)); }
  if (argv[0] === 'leases') return (await import('./leases-cli.ts')).leasesCommand(argv.slice(1));
  if (argv[0] === 'workspaces') return (await import('./workspaces-cli.ts')).workspacesCommand(argv.slice(1));
  if (argv[0] === 'doctor') return (await import('./doctor/index.ts')).doctorCommand(argv.slice(1));
  const command = parseCommand(argv);
  if (command.http) return serveHttpCommand(command);

  const config = await serveConfig();
  const server = await createVmhubServer({ config });
  // The SDK's stdio transport drops the connection on a line over 10 MiB and copies large lines
  // quadratically; ours takes large requests in one copy, so an oversized argument reaches
  // validation and gets a typed INVALID_REQUEST, and a vm_put_file of files.max_bytes is fast.
  // The runtime (store, plugins, reaper) starts with the first real request: a 2025 client's
  // `initialized` (server.ts), or any 2026-07-28 request but `server/discover` — a client probing
  // the revision may have spawned this process for the probe alone.
  const transport = new LineStdioTransport({
    maxLineBytes: MAX_MESSAGE_BYTES,
    onMessage: (method) => { if (method !== 'server/discover' && method !== 'initialize') server.warm(); },
    onClosed: () => void stop('transport closed'),
  });
  let stopping = false;
  // SIGTERM/SIGINT (and the end of a drain) stop within 5 s. Provisioning still in flight then is
  // abandoned to the reaper (LeaseManager.abortAll): its claim lapses, the reaper fails the lease
  // and destroys its machine.
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
  // A client that hung up altogether must not crash a server still finishing its work (EPIPE).
  process.stdout.on('error', (err) => log('warn', 'stdout closed: answers from now on are dropped', { error: err.message }));
  // stdin closed (one-shot clients, e.g. the MCP Inspector CLI, close it after every call): no
  // call can come any more, but what was started is finished — see drainThenStop.
  process.stdin.on('end', () => void drainThenStop(server, transport, () => stopping).then(() => stop('stdin closed')));
  // serveStdio decides the revision per connection: a 2026-07-28 client (per-request `_meta`
  // envelope, maybe a `server/discover` probe first) or a 2025 one (`initialize`), each on an
  // instance from the factory.
  serveStdio(server.factory, { transport, legacy: 'serve', onerror: (err) => log('debug', 'stdio', { error: err.message }) });
  return -1;
}

/**
 * stdin closed: answer the calls in flight, then let the leases being provisioned reach ready or
 * failed (each bounded by its template's ready timeout, its claim renewed all along), then the
 * caller stops the server. A signal meanwhile stops it at once (`stopped()` becomes true).
 */
async function drainThenStop(server: Awaited<ReturnType<typeof createVmhubServer>>, transport: LineStdioTransport, stopped: () => boolean): Promise<void> {
  if (stopped()) return;
  log('info', 'stdin closed: finishing the calls in flight and the leases being provisioned before exit', { calls: transport.pending });
  // The work waited on may hold no handle of its own between steps: this keeps the process up.
  const alive = setInterval(() => undefined, 60_000);
  try {
    await transport.idle();
    await server.drain();
  } catch (err) {
    log('warn', 'finishing in-flight work failed; stopping anyway', { error: (err as Error).message });
  } finally {
    clearInterval(alive);
  }
}

/** The configuration a server starts with; a VMHUB_DB the store cannot use stops it here (exit 2), before anything is created. */
async function serveConfig(): Promise<ReturnType<typeof loadConfig>> {
  const config = loadConfig();
  await checkStoreTarget(config.db);
  return config;
}

async function serveHttpCommand(command: Command): Promise<number> {
  const hub = createVmhubHub({ config: await serveConfig() });
  const http = hub.config.http;
  const port = command.port !== undefined ? (/^\d{1,5}$/.test(command.port) ? Number(command.port) : NaN) : http.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a number 0..65535, not "${command.port}"`);
  const tokens = principalTokens(http, process.env);
  const served = await serveHttp(hub, {
    host: command.host ?? http.host, port, tokens, allowNoAuth: http.allow_no_auth, allowedOrigins: http.allowed_origins,
    sessionIdleSeconds: http.session_idle_seconds, maxSessions: http.max_sessions, maxSessionsPerPrincipal: http.max_sessions_per_principal,
    uiSessionIdleSeconds: http.ui_session_idle_seconds, uiSessionMaxSeconds: http.ui_session_max_seconds,
  });
  process.stderr.write(`vmhub MCP over HTTP at ${served.url}\n`);
  void hub.runtime().catch(() => undefined);
  // SIGHUP re-reads the token list (http.token_env, http.tokens): removing an entry revokes it.
  // Nothing else is reloaded; a config that no longer loads leaves the tokens as they were.
  process.on('SIGHUP', () => {
    try {
      const next = principalTokens(loadConfig().http, process.env);
      const { principals, closed } = served.setTokens(next);
      log('info', 'http tokens reloaded (SIGHUP)', { principals, sessions_closed: closed });
    } catch (err) {
      log('error', 'http token reload failed (SIGHUP); the previous tokens stay in force', { error: (err as Error).message });
    }
  });
  const stop = async () => {
    const force = setTimeout(() => process.exit(0), 5000);
    force.unref();
    await served.close();
    await hub.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => { if (code >= 0) process.exit(code); },
  (err) => {
    // A usage or configuration problem is one line for the operator; anything else gets its stack.
    if (err instanceof UsageError) process.stderr.write(`vmhub-server: ${err.message} (see vmhub-server --help)\n`);
    else process.stderr.write(VmhubError.is(err) ? `${err.message}\n` : `[vmhub] fatal: ${(err as Error).stack ?? err}\n`);
    process.exit(err instanceof UsageError || VmhubError.is(err) ? 2 : 1);
  },
);
