/**
 * Guest agent endpoints with qemu-server's three preconditions (each a 500 before anything reaches
 * the guest): no agent configured, VM not running, agent not answering yet (for `agentDelayMs`
 * after start). exec runs nothing real: a pluggable handler produces the output; exec-status
 * forgets a pid once it reported the exit. file-read/file-write work on an in-memory file map
 * with the real limits (16 MiB read cap, 1 MiB base64 segments for decode=0, 61440-char writes).
 */
import type { HandlerContext } from '../handler.ts';
import { bool } from '../handler.ts';
import { fail } from '../pve-error.ts';
import type { Cluster } from '../cluster.ts';
import type { ExecHandler, ExecState, GuestInterface, SimVm } from '../model.ts';
import { tagSet } from '../tags.ts';
import { guestShellExec } from '../guest-shell.ts';
import { checkRead, checkWrite, DEFAULT_ROOT_ONLY, ERR_TEXT, writeFile, type GuestFs } from '../guest-fs.ts';

const READ_CAP = 16 * 1024 * 1024;
const CHUNK = 1024 * 1024;

function agentVm(cluster: Cluster, params: Record<string, any>): SimVm {
  const vm = cluster.vmOn(params.node, params.vmid);
  const agent = String(vm.config.agent ?? '0');
  if (!/^(1|enabled=1)(,|$)/.test(agent)) throw fail('No QEMU guest agent configured');
  if (vm.status !== 'running') throw fail(`VM ${vm.vmid} is not running`);
  if (vm.guest.agentReadyAt === undefined || cluster.now() < vm.guest.agentReadyAt || vm.guest.booting || vm.paused) throw fail('QEMU guest agent is not running');
  return vm;
}

export function agentPing({ cluster, params }: HandlerContext): unknown {
  agentVm(cluster, params);
  return { result: {} };
}

export function agentSimple(result: (vm: SimVm) => unknown) {
  return ({ cluster, params }: HandlerContext): unknown => ({ result: result(agentVm(cluster, params)) });
}

export function guestInterfaces(cluster: Cluster, vm: SimVm): GuestInterface[] {
  if (vm.guest.interfaces) return vm.guest.interfaces;
  const def = cluster.guestDefaults.interfaces;
  if (typeof def === 'function') return def({ vmid: vm.vmid, name: vm.config.name as string | undefined, tags: tagSet(vm.config.tags as string | undefined) });
  if (def) return def;
  const mac = /=([0-9A-Fa-f:]{17})/.exec(String(vm.config.net0 ?? ''))?.[1]?.toLowerCase() ?? 'bc:24:11:00:00:01';
  return [
    {
      name: 'eth0',
      'hardware-address': mac,
      'ip-addresses': [
        { 'ip-address': `10.10.${(vm.vmid >> 8) & 255}.${vm.vmid & 255}`, 'ip-address-type': 'ipv4', prefix: 24 },
        { 'ip-address': 'fe80::be24:11ff:fe00:1', 'ip-address-type': 'ipv6', prefix: 64 },
      ],
    },
  ];
}

export function agentInterfaces({ cluster, params }: HandlerContext): unknown {
  const vm = agentVm(cluster, params);
  const lo: GuestInterface = {
    name: 'lo',
    'hardware-address': '00:00:00:00:00:00',
    'ip-addresses': [
      { 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4', prefix: 8 },
      { 'ip-address': '::1', 'ip-address-type': 'ipv6', prefix: 128 },
    ],
  };
  return { result: [lo, ...guestInterfaces(cluster, vm)] };
}

/** The default exec handler: a few coreutils and a small sh over the VM's in-memory files (see guest-shell.ts). */
export const defaultExec: ExecHandler = guestShellExec;

export function agentExec({ cluster, params }: HandlerContext): unknown {
  const vm = agentVm(cluster, params);
  const argv: string[] = params.command;
  if (argv.length === 0) throw fail("Agent error: Invalid parameter type for 'path', expected: string");
  if ((argv[0] ?? '').split('/').pop() === 'kill') {
    // killing an earlier exec's pid ends it with the signal, as the guest kernel would
    const target = vm.guest.execs.get(Number(argv[argv.length - 1]));
    if (target && (!target.done || cluster.now() < target.endsAt)) {
      target.result = { signal: 9 };
      target.killed = true;
      target.done = true;
      target.endsAt = cluster.now();
    }
  }
  const pid = vm.guest.nextPid++;
  const state: ExecState = { pid, done: false, endsAt: cluster.now(), result: undefined, error: undefined };
  vm.guest.execs.set(pid, state);
  const handler = vm.guest.exec ?? cluster.guestDefaults.exec ?? defaultExec;
  Promise.resolve()
    .then(() => handler({ vmid: vm.vmid, argv, input: params['input-data'], files: vm.guest.files, owners: vm.guest.owners, dirs: vm.guest.dirs, rootOnly: cluster.guestDefaults.rootOnly ?? DEFAULT_ROOT_ONLY, modes: vm.guest.modes }))
    .then(
      (r) => {
        if (state.killed) return;
        state.result = r;
        state.endsAt = cluster.now() + (r.durationMs ?? 0);
        state.done = true;
      },
      (e: unknown) => {
        if (state.killed) return;
        state.error = (e as Error).message;
        state.done = true;
      },
    );
  return { pid };
}

export function agentExecStatus({ cluster, params }: HandlerContext): unknown {
  const vm = agentVm(cluster, params);
  const st = vm.guest.execs.get(params.pid);
  if (!st) throw fail("Agent error: Invalid parameter 'pid'");
  if (!st.done || cluster.now() < st.endsAt) return { exited: 0 };
  vm.guest.execs.delete(st.pid);
  if (st.error !== undefined) throw fail(`Agent error: ${st.error}`);
  const r = st.result ?? {};
  const out: Record<string, unknown> = { exited: 1 };
  if (r.signal !== undefined) out.signal = r.signal;
  else out.exitcode = r.exitcode ?? 0;
  const stream = (v: string | Buffer | undefined, key: string): void => {
    if (v === undefined || v.length === 0) return;
    const buf = Buffer.isBuffer(v) ? v : Buffer.from(v);
    out[`${key}-data`] = buf.subarray(0, READ_CAP).toString('utf8');
    if (buf.length > READ_CAP) out[`${key}-truncated`] = 1;
  };
  stream(r.stdout, 'out');
  stream(r.stderr, 'err');
  return out;
}

export function agentFileRead({ cluster, params }: HandlerContext): unknown {
  const vm = agentVm(cluster, params);
  const file: string = params.file;
  // The agent runs as root: only what root cannot do either fails (a directory, a name too long).
  const err = checkRead(guestFs(cluster, vm), 'root', file);
  if (err) throw fail(`Agent error: Failed to open file '${file}': ${ERR_TEXT[err]}`);
  const buf = vm.guest.files.get(file)!;
  const offset: number = params.offset ?? 0;
  const count: number = params.count ?? READ_CAP;
  const slice = buf.subarray(offset, offset + count);
  const truncated = offset + count < buf.length;
  let content: string;
  if (params.decode !== undefined && !bool(params.decode)) {
    const parts: string[] = [];
    for (let i = 0; i < slice.length; i += CHUNK) parts.push(slice.subarray(i, i + CHUNK).toString('base64'));
    content = parts.join('');
  } else {
    // PVE puts the raw bytes into the JSON string: not binary-safe, exactly like the real API
    content = slice.toString('latin1');
  }
  return { content, 'bytes-read': slice.length, ...(truncated ? { truncated: 1 } : {}) };
}

export function agentFileWrite({ cluster, params }: HandlerContext): null {
  const vm = agentVm(cluster, params);
  const content: string = params.content;
  const encode = params.encode === undefined ? true : bool(params.encode);
  let buf: Buffer;
  if (encode) buf = Buffer.from(content, 'utf8');
  else {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(content) || content.length % 4 !== 0) throw fail("Agent error: Guest agent command failed, error was 'Base64 data is invalid'");
    buf = Buffer.from(content, 'base64');
  }
  const fs = guestFs(cluster, vm);
  const err = checkWrite(fs, 'root', params.file);
  if (err) throw fail(`Agent error: Failed to open file '${params.file}': ${ERR_TEXT[err]}`);
  writeFile(fs, 'root', params.file, buf);
  return null;
}

function guestFs(cluster: Cluster, vm: SimVm): GuestFs {
  return { files: vm.guest.files, owners: vm.guest.owners, dirs: vm.guest.dirs, rootOnly: cluster.guestDefaults.rootOnly ?? DEFAULT_ROOT_ONLY };
}
