/**
 * What /proc says about a pid. A pid alone is never trusted: a process is "ours" only when it is
 * alive, its start time equals the one recorded at launch, and its argv carries `-name <identity>`.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

export interface ProcInfo {
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot. Survives pid reuse checks. */
  startTime: string;
  state: string;
  argv: string[];
  /** User + system CPU time so far (fields 14 and 15), clock ticks. */
  cpuTicks: number;
}

export async function procInfo(pid: number): Promise<ProcInfo | undefined> {
  if (!Number.isInteger(pid) || pid <= 1) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // comm (field 2) may contain spaces and parentheses: split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = rest[0] ?? '?';
    const startTime = rest[19] ?? '';
    const cpuTicks = Number(rest[11]) + Number(rest[12]);
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const argv = cmdline.split('\0');
    if (argv[argv.length - 1] === '') argv.pop();
    return { startTime, state, argv, cpuTicks };
  } catch {
    return undefined;
  }
}

/** Alive means present and not a zombie (a zombie has exited; only its parent's wait is missing). */
export function isAlive(info: ProcInfo | undefined): info is ProcInfo {
  return info !== undefined && info.state !== 'Z' && info.state !== 'X';
}

export type Verdict = 'ours' | 'gone' | 'mismatch';

/** Decide whether `pid` is the qemu started for `identity` at `startTime`. */
export async function verifyQemu(pid: number, startTime: string, identity: string): Promise<{ verdict: Verdict; why?: string }> {
  const info = await procInfo(pid);
  if (!isAlive(info)) return { verdict: 'gone' };
  if (info.startTime !== startTime) return { verdict: 'mismatch', why: `pid ${pid} started at tick ${info.startTime}, the record says ${startTime} (pid reused or record forged)` };
  // Same pid and start tick is the same process; an empty cmdline then means it is exiting (the
  // kernel drops it with the address space, before the zombie state shows): gone, not someone else.
  if (info.argv.length === 0) return { verdict: 'gone' };
  if (!basename(info.argv[0] ?? '').startsWith('qemu-system')) return { verdict: 'mismatch', why: `pid ${pid} is ${info.argv[0] ?? '?'}, not qemu-system` };
  const at = info.argv.indexOf('-name');
  if (at < 0 || info.argv[at + 1] !== identity) return { verdict: 'mismatch', why: `pid ${pid} does not carry -name ${identity}` };
  return { verdict: 'ours' };
}
