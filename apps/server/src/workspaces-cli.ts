/**
 * `vmhub-server workspaces list|show|rm`: a person at a shell sees every principal's workspaces
 * (vm_lease_create {workspace}) and deletes one — the only ways a workspace is ever deleted
 * besides the dashboard (no agent tool deletes one). A workspace is named by its id, or by its
 * name with `--principal` (default: the local OS user, the principal stdio clients get).
 * `rm` refuses a workspace a lease holds (LOCK_CONTENTION naming the lease).
 * Exit codes: 0 done, 1 the operation failed (one typed line on stderr), 2 bad command line.
 */
import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { asVmhubError, VmhubError } from '@vmhub/core';
import { loadConfig } from '@vmhub/core/config';
import type { WorkspaceRow } from '@vmhub/store';
import { localPrincipal } from './http/principal.ts';
import { relative } from './leases-cli.ts';
import { startRuntime, type Runtime } from './runtime.ts';
import { findWorkspace, measuredWorkspace, measuredWorkspaces, removeWorkspace } from './workspaces/remove.ts';

const USAGE = 'usage: vmhub-server workspaces list [--principal p] [--json] | show <name|id> [--principal p] [--json] | rm <name|id> [--principal p] [--json]';

class Usage extends Error {}

type Options = { principal?: string; json?: boolean };

export async function workspacesCommand(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  let options: Options;
  let ref: string | undefined;
  try {
    if (verb !== 'list' && verb !== 'show' && verb !== 'rm') throw new Usage(verb === undefined ? 'which command?' : `unknown command "${verb}"`);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { principal: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: true });
    } catch (err) {
      throw new Usage((err as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, ''));
    }
    options = parsed.values;
    if (options.principal === '') throw new Usage('--principal needs a principal name');
    if (verb === 'list' && parsed.positionals.length > 0) throw new Usage(`list takes no argument, got "${parsed.positionals[0]}"`);
    if (verb !== 'list' && parsed.positionals.length !== 1) throw new Usage(`${verb} needs exactly one workspace name or id`);
    ref = parsed.positionals[0];
  } catch (err) {
    process.stderr.write(`vmhub-server workspaces: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  let rt: Runtime | undefined;
  try {
    rt = await startRuntime(loadConfig(), import.meta.url, { background: false });
    const out = await run(rt, verb, ref, options);
    await new Promise<void>((resolve) => process.stdout.write(out, () => resolve()));
    return 0;
  } catch (err) {
    const e = VmhubError.is(err) ? err : asVmhubError(err);
    if (options.json) process.stdout.write(JSON.stringify({ error: e.toJSON() }) + '\n');
    process.stderr.write(`vmhub-server workspaces ${verb}: ${e.code}: ${e.message.split('\n')[0]}\n`);
    return rt === undefined && e.code === 'INVALID_REQUEST' ? 2 : 1;
  } finally {
    await rt?.close().catch(() => undefined);
  }
}

async function run(rt: Runtime, verb: string, ref: string | undefined, o: Options): Promise<string> {
  const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n';
  if (verb === 'list') {
    const rows = await measuredWorkspaces(rt.store, rt.registry, o.principal);
    if (o.json) return json({ workspaces: rows.map(view) });
    return table(rows);
  }
  const row = await findWorkspace(rt.store, ref!, o.principal ?? localPrincipal());
  if (verb === 'show') {
    const v = view(await measuredWorkspace(rt.store, rt.registry, row));
    if (o.json) return json(v);
    return Object.entries(v).map(([k, val]) => `${k.padEnd(12)}${val ?? '-'}`).join('\n') + '\n';
  }
  const outcome = await removeWorkspace(rt.store, rt.registry, row, `cli:${userInfo().username}@${hostname()}`);
  if (o.json) return json({ ...view(row), deleted: outcome });
  return `workspace ${row.name} of ${row.principal} (${row.identity}): ${outcome === 'destroyed' ? 'deleted' : outcome === 'already_gone' ? 'its volume was already gone; forgotten' : 'the volume carries another identity and was left alone; forgotten'}\n`;
}

function view(r: WorkspaceRow): Record<string, string | number | undefined> {
  return {
    workspace_id: r.id, name: r.name, principal: r.principal, provider: r.provider, identity: r.identity, template: r.template, path: r.path,
    state: r.state, holder_lease: r.holder_lease, bytes: r.bytes, created_at: new Date(r.created_at).toISOString(), used_at: new Date(r.used_at).toISOString(),
  };
}

function table(rows: WorkspaceRow[]): string {
  if (rows.length === 0) return 'no workspaces\n';
  const t = [['NAME', 'PRINCIPAL', 'PROVIDER', 'HELD BY', 'BYTES', 'USED', 'ID']];
  for (const r of rows) t.push([r.name, r.principal, r.provider, r.holder_lease ?? '-', String(r.bytes), relative(r.used_at), r.id]);
  const widths = t[0]!.map((_, i) => Math.max(...t.map((row) => row[i]!.length)));
  return t.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}
