/**
 * Which compositor runs in the guest and how to reach it, found once per lease session with one
 * fixed sh script (the channel's exec does not inherit the session's environment):
 * - XDG_RUNTIME_DIR: option, else /run/user/$(id -u);
 * - Hyprland: option signature, else the newest $XDG_RUNTIME_DIR/hypr/<sig>/ with `.socket.sock`
 *   and a `hyprland.lock` whose line-1 pid is alive (line 2 is its WAYLAND_DISPLAY);
 * - sway: option swaysock, else the newest live $XDG_RUNTIME_DIR/sway-ipc.<uid>.<pid>.sock;
 * - WAYLAND_DISPLAY: option, else Hyprland's lock, else the first wayland-N socket.
 * "auto" prefers Hyprland when an instance is found. For Hyprland, `j/version` then picks the
 * dispatcher syntax (hypr-ipc.ts).
 */
import type { AdapterContext } from '@vmhub/core';
import { DOCS, hyprError } from './errors.ts';
import { openGuest } from './guest.ts';
import { hyprRequest, parseJson, syntaxFor, versionOf, type DispatchSyntax } from './hypr-ipc.ts';
import type { HyprlandOptions } from './options.ts';

export type CompositorKind = 'sway' | 'hyprland';

export interface Desktop {
  kind: CompositorKind;
  /** Passed to every guest command. */
  env: Record<string, string>;
  hypr?: { signature: string; version: string; syntax: DispatchSyntax };
}

export const DISCOVER_SCRIPT = String.raw`
rt=$1; want=$2; sig=$3; ss=$4
[ -n "$rt" ] || rt=/run/user/$(id -u)
[ -d "$rt" ] || { echo "nort $rt"; exit 0; }
echo "rt $rt"
if [ "$want" != sway ]; then
  if [ -n "$sig" ]; then cands="$rt/hypr/$sig"; else cands=$(ls -td "$rt"/hypr/*/ 2>/dev/null); fi
  for d in $cands; do
    d=\${d%/}
    [ -S "$d/.socket.sock" ] || continue
    pid=$(sed -n 1p "$d/hyprland.lock" 2>/dev/null)
    if [ -z "$sig" ]; then [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue; fi
    echo "hypr \${d##*/}"
    echo "hyprwd $(sed -n 2p "$d/hyprland.lock" 2>/dev/null)"
    break
  done
fi
if [ -n "$ss" ]; then
  echo "sway $ss"
else
  for s in $(ls -t "$rt"/sway-ipc.*.sock 2>/dev/null); do
    p=\${s%.sock}; p=\${p##*.}
    if kill -0 "$p" 2>/dev/null; then echo "sway $s"; break; fi
  done
fi
for w in $(ls "$rt" 2>/dev/null); do
  case "$w" in wayland-*.lock) ;; wayland-*) [ -S "$rt/$w" ] && echo "wl $w" ;; esac
done
[ -S "$rt/bus" ] && echo "bus $rt/bus"
exit 0
`.replace(/\\\$\{/g, '${');

export interface Found {
  rt?: string;
  hypr?: string;
  hyprWayland?: string;
  sway?: string;
  wayland: string[];
  bus?: string;
}

export function parseDiscovery(text: string): Found {
  const found: Found = { wayland: [] };
  for (const line of text.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp < 0) continue;
    const key = line.slice(0, sp), value = line.slice(sp + 1).trim();
    if (key === 'rt') found.rt = value;
    else if (key === 'hypr') found.hypr = value;
    else if (key === 'hyprwd' && value) found.hyprWayland = value;
    else if (key === 'sway') found.sway = value;
    else if (key === 'wl') found.wayland.push(value);
    else if (key === 'bus') found.bus = value;
  }
  return found;
}

export async function discoverDesktop(ctx: AdapterContext, options: HyprlandOptions): Promise<Desktop> {
  const bare = await openGuest(ctx, options, {});
  const res = await bare.sh(DISCOVER_SCRIPT, [options.xdg_runtime_dir ?? '', options.compositor, options.hyprland_instance_signature ?? '', options.swaysock ?? ''], { label: 'desktop discovery' });
  const found = parseDiscovery(res.stdout.toString('utf8'));
  if (!found.rt) {
    throw hyprError('INTERNAL', `the guest has no XDG_RUNTIME_DIR (${options.xdg_runtime_dir ?? '/run/user/<uid>'}): the Wayland session is not up for this user; set adapter option xdg_runtime_dir if it lives elsewhere (${DOCS})`, {
      hint: 'The desktop is not up: wait with vm_lease_status or release and recreate the lease.',
    });
  }
  const env: Record<string, string> = { XDG_RUNTIME_DIR: found.rt };
  if (found.bus) env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${found.bus}`;
  const kind: CompositorKind | undefined = options.compositor === 'sway' ? (found.sway ? 'sway' : undefined)
    : options.compositor === 'hyprland' ? (found.hypr ? 'hyprland' : undefined)
    : found.hypr ? 'hyprland' : found.sway ? 'sway' : undefined;
  if (!kind) {
    const wanted = options.compositor === 'auto' ? 'Hyprland or sway' : options.compositor;
    throw hyprError('INTERNAL', `no ${wanted} instance found under ${found.rt} (no live hypr/<signature>/.socket.sock${options.compositor === 'hyprland' ? '' : ' nor sway-ipc.*.sock'}): is the compositor running as this user?`, {
      hint: 'The desktop is not up: wait with vm_lease_status or release and recreate the lease.',
    });
  }
  const wayland = options.wayland_display ?? (kind === 'hyprland' ? found.hyprWayland : undefined) ?? found.wayland.sort()[0];
  if (!wayland) throw hyprError('INTERNAL', `no Wayland socket (wayland-N) in ${found.rt}: the compositor is not serving clients yet`, { hint: 'Wait with vm_lease_status, then retry.' });
  env.WAYLAND_DISPLAY = wayland;
  if (found.sway) env.SWAYSOCK = found.sway;
  if (kind === 'sway') return { kind, env };
  env.HYPRLAND_INSTANCE_SIGNATURE = found.hypr!;
  const guest = await openGuest(ctx, options, env);
  const version = versionOf(parseJson<{ version?: string; tag?: string }>(await hyprRequest(guest, 'j/version'), 'j/version'));
  return { kind, env, hypr: { signature: found.hypr!, version, syntax: syntaxFor(version) } };
}
