/**
 * `vmhub-server leases list|show|release|renew|ssh|export`: a person at a shell finds and ends leases on
 * the store the server uses, through the same LeaseManager as the vm_lease_* tools (so a release
 * here verifies identity and records events exactly as vm_lease_release does). Whoever can run this
 * owns the store file, so it sees every principal's leases. `ssh` enters one lease's machine
 * (leases/ssh-command.ts), as one principal: `--principal`, else the local OS user. `export` writes
 * a lease's recording as ATIF or a Hugging Face datasets tar (leases/export-command.ts).
 * Exit codes: 0 done, 1 the operation failed (one typed line on stderr), 2 bad command line;
 * `ssh` exits with the remote command's (or shell's) status.
 */
import { parseArgs } from 'node:util';
import { asVmhubError, LEASE_STATES, LIVE_LEASE_STATES, VmhubError, type LeaseInfo } from '@vmhub/core';
import { loadConfig, type VmhubConfig } from '@vmhub/core/config';
import type { LeaseRow, LeaseStatus } from '@vmhub/store';
import { exportCommand } from './leases/export-command.ts';
import { sshCommand } from './leases/ssh-command.ts';
import { leaseView } from './leases/view.ts';
import { EXPORT_FORMATS, isExportFormat, type ExportFormat } from './live/recording-export.ts';
import { startRuntime, type Runtime } from './runtime.ts';

const USAGE = 'usage: vmhub-server leases list [--all] [--status s] [--owner o] [--json] | show <id> [--json] | release <id> [--json] | renew <id> [--ttl seconds] [--json] | ssh <id> [--principal p] [-- command…] | export <id> --format atif|hf [--out PATH|-]';
/** Not final: the lease still has (or may still get) a machine. What `list` shows by default. */
const OPEN: readonly LeaseStatus[] = ['provisioning', 'starting', 'ready', 'releasing', 'expired'];
const FINAL = new Set(['released', 'failed', 'reaped']);
const LIST_CAP = 100;

class Usage extends Error {}

type Options = { all?: boolean; status?: string; owner?: string; ttl?: string; json?: boolean; principal?: string; format?: string; out?: string; /** ssh: the argv after `--`. */ command?: string[] };

export async function leasesCommand(argv: string[]): Promise<number> {
  let verb: string | undefined;
  let id: string | undefined;
  let options: Options;
  try {
    ({ verb, id, options } = parse(argv));
  } catch (err) {
    process.stderr.write(`vmhub-server leases: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  let rt: Runtime | undefined;
  try {
    // A one-shot command: no warm pool is filled and no reaper is started from here.
    const config = loadConfig();
    rt = await startRuntime(config, import.meta.url, { background: false });
    const out = await run(rt, verb, id, options, config);
    await write(out.text);
    return out.code;
  } catch (err) {
    const e = VmhubError.is(err) ? err : asVmhubError(err);
    if (options.json) await write(JSON.stringify({ error: e.toJSON() }) + '\n');
    process.stderr.write(`vmhub-server leases ${verb}: ${e.code}: ${e.message.split('\n')[0]}\n`);
    // A configuration that does not load is the operator's to fix, like a bad argument.
    return rt === undefined && e.code === 'INVALID_REQUEST' ? 2 : 1;
  } finally {
    await rt?.close().catch(() => undefined);
  }
}

function parse(argv: string[]): { verb: string; id: string | undefined; options: Options } {
  const [verb, ...all] = argv;
  // ssh: everything after the first `--` is the remote command, options of its own included.
  const dash = verb === 'ssh' ? all.indexOf('--') : -1;
  const rest = dash >= 0 ? all.slice(0, dash) : all;
  const command = dash >= 0 ? all.slice(dash + 1) : undefined;
  if (command?.length === 0) throw new Usage('nothing after "--": name the command to run, or leave "--" out for a shell');
  const spec = {
    list: { all: { type: 'boolean' }, status: { type: 'string' }, owner: { type: 'string' }, json: { type: 'boolean' } },
    show: { json: { type: 'boolean' } },
    release: { json: { type: 'boolean' } },
    renew: { ttl: { type: 'string' }, json: { type: 'boolean' } },
    ssh: { principal: { type: 'string' } },
    export: { format: { type: 'string' }, out: { type: 'string' } },
  } as const;
  if (verb === undefined || !Object.hasOwn(spec, verb)) throw new Usage(verb === undefined ? 'which command?' : `unknown command "${verb}"`);
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: spec[verb as keyof typeof spec], strict: true, allowPositionals: true });
  } catch (err) {
    throw new Usage((err as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, ''));
  }
  const options = { ...parsed.values, ...(command ? { command } : {}) } as Options;
  const positionals = parsed.positionals;
  if (verb === 'list' && positionals.length > 0) throw new Usage(`list takes no argument, got "${positionals[0]}"`);
  if (verb !== 'list' && positionals.length !== 1) throw new Usage(`${verb} needs exactly one lease id${verb === 'ssh' && positionals.length > 1 ? ' (put the command after "--")' : ''}`);
  if (options.principal === '') throw new Usage('--principal needs a principal name');
  if (verb === 'export' && !(options.format !== undefined && isExportFormat(options.format))) throw new Usage(`--format must be ${EXPORT_FORMATS.join(' or ')}${options.format === undefined ? '' : `, not "${options.format}"`}`);
  if (options.out === '') throw new Usage('--out needs a path (or - for stdout)');
  if (options.status !== undefined && options.status !== 'live' && !(LEASE_STATES as readonly string[]).includes(options.status)) {
    throw new Usage(`--status must be live or one of ${LEASE_STATES.join(', ')}, not "${options.status}"`);
  }
  if (options.status !== undefined && options.all) throw new Usage('give --all or --status, not both');
  if (options.ttl !== undefined && !(/^\d+$/.test(options.ttl) && Number(options.ttl) >= 60 && Number(options.ttl) <= 86400)) {
    throw new Usage(`--ttl must be whole seconds from 60 to 86400, not "${options.ttl}"`);
  }
  return { verb, id: positionals[0], options };
}

async function run(rt: Runtime, verb: string, id: string | undefined, o: Options, config: VmhubConfig): Promise<{ text: string; code: number }> {
  const json = (value: unknown, code = 0) => ({ text: JSON.stringify(value, null, 2) + '\n', code });
  switch (verb) {
    case 'list': {
      const status = o.all ? undefined : o.status === undefined ? OPEN : o.status === 'live' ? LIVE_LEASE_STATES : [o.status as LeaseStatus];
      const { leases, truncated } = await rt.leases.list({ principal: undefined, owner: o.owner, status }, LIST_CAP);
      if (o.json) return json({ leases: leases.map(withPrincipal), truncated });
      return { text: listTable(leases, truncated, o), code: 0 };
    }
    case 'show': {
      const row = await rt.leases.get(id!);
      const machine = await rt.store.getMachine(row.id);
      if (o.json) return json({ ...withPrincipal(row), ...(machine ? { machine: { provider: machine.provider, external_id: machine.external_id, node: machine.node, state: machine.state } } : {}) });
      const m = machine ? `${machine.provider} ${machine.external_id ?? '(not created yet)'}${machine.node ? ` on ${machine.node}` : ''}: ${machine.state}` : 'none recorded';
      return { text: details(row, [['machine', m]]), code: 0 };
    }
    case 'release': {
      const v = await rt.leases.release({ lease_id: id! }, undefined);
      // Done only when the lease is over; "releasing" means someone else's teardown is still running.
      const code = FINAL.has(v.status) ? 0 : 1;
      if (o.json) return json(v, code);
      return { text: `lease ${v.lease_id} (${v.template}): ${v.status}${v.note ? ` — ${v.note}` : ''}\n`, code };
    }
    case 'renew': {
      const before = await rt.leases.get(id!);
      const v = await rt.leases.renew({ lease_id: id!, ...(o.ttl ? { ttl_seconds: Number(o.ttl) } : {}) }, undefined);
      if (o.json) return json(v);
      const at = Date.parse(v.expires_at);
      const why = at === before.expires_at ? ' (unchanged: a renewal never moves the expiry earlier)' : v.expires_at === v.max_expires_at ? ' (capped by the lease\'s max lifetime)' : '';
      return { text: `lease ${v.lease_id} (${v.template}): expires ${v.expires_at}, ${relative(at)}${why}; was ${relative(before.expires_at)}\n`, code: 0 };
    }
    case 'ssh':
      return { text: '', code: await sshCommand(rt, id!, { principal: o.principal, command: o.command }) };
    case 'export':
      return { text: await exportCommand(rt, config, id!, o.format as ExportFormat, o.out), code: 0 };
  }
  throw new Usage(`unknown command "${verb}"`);
}

/** Written before the CLI exits: process.exit() does not wait for a pipe that is written asynchronously (macOS). */
function write(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text, () => resolve()));
}

function withPrincipal(row: LeaseRow): LeaseInfo & { principal?: string } {
  return { ...leaseView(row), ...(row.principal ? { principal: row.principal } : {}) };
}

function listTable(rows: LeaseRow[], truncated: boolean, o: Options): string {
  if (rows.length === 0) return `no ${o.all ? '' : o.status ? `${o.status} ` : 'open '}leases${o.owner ? ` with owner "${o.owner}"` : ''}${o.all ? '' : ' (--all shows ended ones too)'}\n`;
  const table = [['LEASE', 'STATUS', 'TEMPLATE', 'PRINCIPAL', 'OWNER', 'CREATED', 'EXPIRES']];
  for (const r of rows) table.push([r.id, r.status, r.template, r.principal ?? '-', r.owner ?? '-', relative(r.created_at), FINAL.has(r.status) ? '-' : relative(r.expires_at)]);
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const lines = table.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  if (truncated) lines.push(`(only the newest ${rows.length} are shown: narrow it with --status or --owner)`);
  return lines.join('\n') + '\n';
}

function details(row: LeaseRow, extra: [string, string][]): string {
  const v = leaseView(row);
  const fields: [string, string][] = [
    ['lease', v.lease_id], ['status', v.status], ['template', `${row.template} (provider ${row.provider}, adapter ${row.adapter})`],
    ['principal', row.principal ?? '-'], ['owner', row.owner ?? '-'], ['request_id', v.request_id],
    ['created', `${v.created_at} (${relative(row.created_at)})`],
    ['expires', `${v.expires_at} (${relative(row.expires_at)})`],
    ['max_expires', `${v.max_expires_at} (${relative(row.max_expires_at)})`],
    ['stages', v.stages.map((s) => `${s.name} ${s.status}${s.detail ? ` (${s.detail})` : ''}`).join(', ') || '-'],
    ...(v.error ? [['error', `${v.error.code}: ${v.error.message}`] as [string, string]] : []),
    ...extra,
  ];
  return fields.map(([k, val]) => `${k.padEnd(12)}${val}`).join('\n') + '\n';
}

/** "in 4m 10s" / "3h 2m ago": enough to see at a glance what expires when. */
export function relative(at: number, now = Date.now()): string {
  const s = Math.round(Math.abs(at - now) / 1000);
  const text = s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m ${s % 60}s` : s < 86400 ? `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m` : `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
  return at >= now ? `in ${text}` : `${text} ago`;
}
