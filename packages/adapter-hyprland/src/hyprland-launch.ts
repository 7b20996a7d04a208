/**
 * Launch through the compositor's own exec (sway `exec`, Hyprland `dispatch exec` /
 * `hl.dsp.exec_cmd`), so the app gets the session's environment and is the compositor's child,
 * like one started from a launcher. Agent input never enters a command line: the argv goes to a
 * fresh directory in XDG_RUNTIME_DIR as a NUL-separated file, and the compositor runs the fixed
 * `sh <dir>/run`, which hands it to `xargs -0` → `sh -c 'echo $$ > pid; exec "$@"'` — so the pid
 * file holds the app's own pid. Then the window list is polled (bounded by wait_seconds) for a
 * NEW window with that pid; an app that hands off to another process shows a window with another
 * pid, accepted when it is the only new one on two polls in a row.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { hyprError } from './errors.ts';
import type { HyprRuntime } from './runtime.ts';
import type { WaylandWindow } from './compositor.ts';
import { publicWindow, readWindows } from './hyprland-list-windows.ts';

const PREPARE_SCRIPT = String.raw`
command -v "$1" >/dev/null 2>&1 || { echo "not found: $1" >&2; exit 44; }
d=$(mktemp -d "$XDG_RUNTIME_DIR/vmhub-launch.XXXXXX") || exit 70
cat > "$d/argv"
cat > "$d/run" <<'RUN'
d=$(dirname "$0")
exec xargs -0 -a "$d/argv" sh -c 'echo "$$" > "$0.part" && mv "$0.part" "$0"; exec "$@"' "$d/pid"
RUN
printf '%s\n' "$d"
`;

const PID_SCRIPT = 'cat "$1/pid" 2>/dev/null; exit 0';

const POLL_MS = 150;

export async function launch(rt: HyprRuntime, ctx: AdapterContext, input: { app: string; args: string[]; wait_seconds: number }): Promise<{ pid?: number; window?: WindowInfo }> {
  if (input.app.startsWith('-') || input.app === '') throw hyprError('INVALID_REQUEST', `app "${input.app}" must be a program name or path, not an option`);
  if ([input.app, ...input.args].some((a) => a.includes('\0'))) throw hyprError('INVALID_REQUEST', 'app and args must not contain NUL characters');
  const guest = await rt.guest(ctx);
  const comp = await rt.compositor(ctx);
  const wait = input.wait_seconds; // 0–20, checked by core's schema
  const before = new Set((await readWindows(rt, ctx)).map((w) => w.id));
  const argv = Buffer.from([input.app, ...input.args].map((a) => `${a}\0`).join(''), 'utf8');
  const prep = await guest.sh(PREPARE_SCRIPT, [input.app], { stdin: argv, okCodes: [0, 44], needs: ['mktemp', 'xargs', 'dirname'], label: 'launch' });
  if (prep.exit_code === 44) {
    throw hyprError('NOT_FOUND', `"${input.app}" is not an executable on the guest's PATH nor an executable path: install it in the golden image or give the full path`);
  }
  const dir = prep.stdout.toString('utf8').trim();
  if (!/^\/[A-Za-z0-9._/-]+$/.test(dir)) throw hyprError('INTERNAL', `launch could not make its work directory (got "${dir.slice(0, 100)}")`);
  try {
    await comp.exec(guest, `sh ${dir}/run`);
    const out: { pid?: number; window?: WindowInfo } = {};
    const deadline = Date.now() + Math.max(wait * 1000, 1000);
    let lastForeign: string | undefined;
    while (Date.now() < deadline && !ctx.signal.aborted) {
      await sleep(POLL_MS);
      if (out.pid === undefined) {
        const pid = Number((await guest.sh(PID_SCRIPT, [dir])).stdout.toString('utf8').trim());
        if (Number.isInteger(pid) && pid > 0) out.pid = pid;
      }
      if (wait === 0) { if (out.pid !== undefined) break; continue; }
      const fresh: WaylandWindow[] = (await readWindows(rt, ctx)).filter((w) => !before.has(w.id));
      const own = fresh.find((w) => out.pid !== undefined && w.pid === out.pid);
      const layout = await rt.layout(ctx);
      if (own) return { ...out, window: publicWindow(layout, own) };
      if (fresh.length === 1) {
        if (lastForeign === fresh[0]!.id) return { ...out, window: publicWindow(layout, fresh[0]!) };
        lastForeign = fresh[0]!.id;
      } else {
        lastForeign = undefined;
      }
    }
    return out;
  } finally {
    await guest.run(['rm', '-rf', '--', dir], { cleanup: true, timeoutMs: 5000 }).catch(() => undefined);
  }
}
