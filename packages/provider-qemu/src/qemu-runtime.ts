/**
 * What every provider method shares: resolved options and the lookups that tie a MachineRef to
 * its state directory and verified process. Nothing per machine lives here: QMP connections for
 * readiness and teardown are opened and closed by the method that needs them, and channels and
 * consoles belong to whoever opened them (core's lease session).
 */
import { existsSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { execa } from 'execa';
import { LeaseSecrets, VmhubError, type MachineRef, type ProviderContext, type TemplateConfig } from '@vmhub/core';
import { type QemuProviderOptions, templateOptions } from './options.ts';
import { defaultStateDir } from './paths.ts';
import { verifyQemu } from './proc.ts';
import { machineDir, readRecord, type StateRecord } from './state-dir.ts';

export const SOURCE = 'provider-qemu';

export interface QemuRuntime {
  stateDir: string;
  binary: string;
  qemuImg: string;
  wantedAccel: 'auto' | 'kvm' | 'tcg';
  machine: string;
  defaultMemoryMb: number;
  qmpTimeoutMs: number;
  stopTimeoutMs: number;
  /** Provider option saved_state (default true; env VMHUB_QEMU_SAVED_STATE=0 turns it off). */
  savedState: boolean;
  context: ProviderContext;
  /**
   * Per-lease SSH private keys (and pinned host keys) of templates with provider_options.ssh: one
   * 0600 file per lease in `<dir>/provider-qemu/keys` (qemu-ssh.ts), dropped at destroy; `<dir>`
   * is the instance's state directory (ProviderContext.stateDir), else this provider's stateDir.
   */
  secrets: LeaseSecrets;
  /** `qemu-system-x86_64 --version`, once (retried after a failure). */
  qemuVersion(): Promise<string>;
}

export function createRuntime(options: QemuProviderOptions, context: ProviderContext): QemuRuntime {
  const binary = options.qemu_binary ?? process.env.VMHUB_QEMU_BINARY ?? 'qemu-system-x86_64';
  const qmpTimeoutMs = options.qmp_timeout_ms ?? 10_000;
  let version: Promise<string> | undefined;
  const stateDir = resolve(options.state_dir ?? process.env.VMHUB_QEMU_STATE_DIR ?? defaultStateDir());
  return {
    stateDir,
    binary,
    qemuImg: options.qemu_img ?? process.env.VMHUB_QEMU_IMG ?? 'qemu-img',
    wantedAccel: options.accel ?? (process.env.VMHUB_QEMU_ACCEL as 'auto' | 'kvm' | 'tcg' | undefined) ?? 'auto',
    machine: options.machine ?? 'q35',
    defaultMemoryMb: options.default_memory_mb ?? 512,
    qmpTimeoutMs,
    stopTimeoutMs: options.stop_timeout_ms ?? 5_000,
    savedState: options.saved_state ?? !['0', 'false', 'off', 'no'].includes((process.env.VMHUB_QEMU_SAVED_STATE ?? '').toLowerCase()),
    context,
    // The instance's state directory when the host gives one (as for every provider), else the
    // provider's own: QEMU machines live on disk, so their keys must too. Either way not under
    // the instance prefix, so list() never takes it for a machine.
    secrets: LeaseSecrets.forProvider('provider-qemu', context.stateDir ?? stateDir),
    qemuVersion() {
      version ??= execa(binary, ['--version'], { timeout: 10_000 }).then((r) => r.stdout.split('\n')[0] ?? '');
      version.catch(() => { version = undefined; });
      return version;
    },
  };
}

/**
 * The directory to examine under `root` (the state dir, or the snapshots'): the external_id when
 * it is a directory right under `root` (so a forged identity on a real machine is caught by
 * comparing records), else the identity's own. Either way nothing is touched until the record
 * inside names this identity (findByIdentity).
 */
function locateIn(root: string, ref: { identity: string; external_id: string }): string {
  const ext = typeof ref.external_id === 'string' && isAbsolute(ref.external_id) ? resolve(ref.external_id) : '';
  return ext && dirname(ext) === root ? ext : machineDir(root, ref.identity);
}

/**
 * The identity-named directory under `root` that `ref` points at (locateIn), read back by identity:
 * `gone` when the identity cannot be a directory name or nothing is there; `mismatch` when the
 * record (`read`) is missing or it or the directory names another identity (`record` is what was
 * found); `ours` otherwise. state(), destroy() and the snapshots' lookups all go through here.
 */
export async function findByIdentity<R extends { identity: string }>(
  root: string, ref: { identity: string; external_id: string }, read: (dir: string) => Promise<R | undefined>,
): Promise<{ verdict: 'ours'; dir: string; record: R } | { verdict: 'mismatch'; dir: string; record?: R } | { verdict: 'gone'; dir?: string }> {
  let dir: string;
  try {
    dir = locateIn(root, ref);
  } catch {
    return { verdict: 'gone' }; // an identity that cannot be a directory name names nothing here
  }
  if (!existsSync(dir)) return { verdict: 'gone', dir };
  const record = await read(dir);
  if (!record || record.identity !== ref.identity || basename(dir) !== ref.identity) return { verdict: 'mismatch', dir, ...(record ? { record } : {}) };
  return { verdict: 'ours', dir, record };
}

/** The record for a machine, only when the directory's record names this identity. */
export async function recordFor(rt: QemuRuntime, machine: MachineRef): Promise<{ dir: string; record: StateRecord | undefined }> {
  const dir = machineDir(rt.stateDir, machine.identity);
  const record = await readRecord(dir);
  return { dir, record: record && record.identity === machine.identity ? record : undefined };
}

/** The machine's dir and record, when its qemu is verified running; else NOT_FOUND. */
export async function requireLive(rt: QemuRuntime, machine: MachineRef, what: string): Promise<{ dir: string; record: StateRecord }> {
  const { dir, record } = await recordFor(rt, machine);
  if (!record) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] no state record for ${machine.identity} in ${rt.stateDir}: the machine is gone`, { source: SOURCE });
  const v = await verifyQemu(record.pid, record.pid_start_time, record.identity);
  if (v.verdict !== 'ours') {
    throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] ${what}: qemu for ${machine.identity} is not running${v.why ? ` (${v.why})` : ''}`, { source: SOURCE });
  }
  return { dir, record };
}

/** Why the template's golden/kernel/initrd cannot be used, or undefined. */
export async function goldenProblem(template: TemplateConfig): Promise<string | undefined> {
  const t = templateOptions(template.provider_options);
  const hint = t.build_hint ? `: ${t.build_hint}` : '';
  for (const [what, path] of [['golden', template.golden], ['kernel', t.kernel], ['initrd', t.initrd]] as const) {
    if (path === undefined) continue;
    if (!isAbsolute(path)) return `${what} "${path}" must be an absolute path on the QEMU host`;
    if (!existsSync(path)) return `${what} ${path} does not exist${hint}`;
  }
  return undefined;
}

export async function isQcow2(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4);
    await fh.read(buf, 0, 4, 0);
    return buf.toString('latin1') === 'QFI\xfb';
  } finally {
    await fh.close();
  }
}

/** The end of a log file, for error messages. */
export async function tail(path: string, bytes = 1500): Promise<string> {
  const text = await readFile(path, 'latin1').catch(() => '');
  return text.slice(-bytes).replace(/\r/g, '').trim();
}
