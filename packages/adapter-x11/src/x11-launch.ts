/**
 * Launch: start the app detached from the guest command (setsid, stdio on /dev/null, so the
 * channel's exec returns at once and the app outlives it), report its pid, then poll the window
 * list until a NEW window appears whose _NET_WM_PID is that pid. Apps that hand off to another
 * process (a running server, a wrapper script) show a window with another pid: such a window is
 * accepted when it is the only new one on two polls in a row.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { x11Error } from './errors.ts';
import type { X11Runtime } from './runtime.ts';
import { listWindowsWith, publicWindow, type X11Window } from './x11-list-windows.ts';

// In a non-interactive sh a background job stays in the shell's process group, so setsid() does
// not need to fork and $! is the app's own pid.
const LAUNCH_SCRIPT = String.raw`
app=$1; shift
command -v "$app" >/dev/null 2>&1 || { echo "not found: $app" >&2; exit 44; }
setsid "$app" "$@" </dev/null >/dev/null 2>&1 &
echo "$!"
`;

const POLL_MS = 150;

export async function launch(rt: X11Runtime, ctx: AdapterContext, input: { app: string; args: string[]; wait_seconds: number }): Promise<{ pid?: number; window?: WindowInfo }> {
  if (input.app.startsWith('-') || input.app.includes('\0')) throw x11Error('INVALID_REQUEST', `app "${input.app}" must be a program name or path, not an option`);
  const guest = await rt.guest(ctx);
  const wait = input.wait_seconds; // 0–20, checked by core's schema
  const before = wait > 0 ? new Set((await listWindowsWith(guest)).map((w) => w.id)) : new Set<string>();
  const res = await guest.sh(LAUNCH_SCRIPT, [input.app, ...input.args], { okCodes: [0, 44], needs: ['setsid'] });
  if (res.exit_code === 44) {
    throw x11Error('NOT_FOUND', `"${input.app}" is not an executable on the guest's PATH nor an executable path: install it in the golden image or give the full path`);
  }
  const pid = Number(res.stdout.toString('utf8').trim());
  const out: { pid?: number; window?: WindowInfo } = Number.isInteger(pid) && pid > 0 ? { pid } : {};
  if (wait === 0) return out;
  const deadline = Date.now() + wait * 1000;
  let lastForeign: string | undefined;
  while (Date.now() < deadline && !ctx.signal.aborted) {
    await sleep(POLL_MS);
    const fresh: X11Window[] = (await listWindowsWith(guest)).filter((w) => !before.has(w.id));
    const own = fresh.find((w) => w.pid === out.pid);
    if (own) return { ...out, window: publicWindow(own) };
    if (fresh.length === 1) {
      if (lastForeign === fresh[0]!.id) return { ...out, window: publicWindow(fresh[0]!) };
      lastForeign = fresh[0]!.id;
    } else {
      lastForeign = undefined;
    }
  }
  return out;
}
