/**
 * Probe: which declared capabilities cannot work on this machine now, and why. One guest command
 * checks every tool with `command -v` and whether python3 can import pyatspi and an accessibility
 * bus can be reached; the compositor discovery (desktop.ts) says whether a session is up. The
 * answer is kept for the session once the compositor was found.
 */
import type { AdapterContext, Capability } from '@vmhub/core';
import { cloneRepoUnavailable, lackingTools, probeWith, type Unavailable } from '@vmhub/core/adapter-kit';
import { DOCS } from './errors.ts';
import { openGuest } from './guest.ts';
import type { HyprRuntime } from './runtime.ts';

export const ATSPI_REASON = 'the golden image has no AT-SPI stack (at-spi2-core + python3-pyatspi) or no session D-Bus ($XDG_RUNTIME_DIR/bus)';

/** Guest programs each capability needs (coreutils and sh are assumed). */
export const NEEDS: Partial<Record<Capability, string[]>> = {
  screenshot: ['grim'],
  click: ['python3'],
  drag: ['python3'],
  scroll: ['python3'],
  type: ['python3'],
  key: ['python3'],
  paste: ['wtype', 'wl-copy', 'wl-paste', 'timeout'],
  launch: ['xargs', 'mktemp'],
  dispatch: ['wl-copy', 'wl-paste'],
};
const SWAY_NEEDS = ['swaymsg'];
const CAPS = Object.keys(NEEDS) as Capability[];
const WINDOW_CAPS: Capability[] = ['list_windows', 'focus', 'close', 'launch'];
const TOOLS = [...new Set([...Object.values(NEEDS).flat(), ...SWAY_NEEDS, 'perl', 'tar'])];

const PROBE_SCRIPT = String.raw`
for t in "$@"; do command -v "$t" >/dev/null 2>&1 || printf 'missing %s\n' "$t"; done
if command -v python3 >/dev/null 2>&1 && python3 -c 'import pyatspi' >/dev/null 2>&1; then printf 'atspi yes\n'; else printf 'atspi no\n'; fi
`;

export interface ProbeFacts {
  missing: string[];
  atspi: boolean;
  /** Why no compositor was found, when none was. */
  desktopError?: string;
  kind?: 'sway' | 'hyprland';
  bus: boolean;
}

export async function probeFacts(rt: HyprRuntime, ctx: AdapterContext): Promise<ProbeFacts> {
  const cached = rt.facts.peek('probe');
  if (cached) return cached;
  let desktopError: string | undefined;
  const desktop = await rt.desktop(ctx).catch((err: Error) => { desktopError = err.message; return undefined; });
  const guest = desktop ? await rt.guest(ctx) : await openGuest(ctx, rt.options, {});
  const res = await guest.sh(PROBE_SCRIPT, TOOLS, { timeoutMs: 20_000, label: 'probe' });
  const lines = res.stdout.toString('utf8').split('\n');
  const facts: ProbeFacts = {
    missing: lines.filter((l) => l.startsWith('missing ')).map((l) => l.slice(8).trim()),
    atspi: lines.includes('atspi yes'),
    bus: desktop?.env.DBUS_SESSION_BUS_ADDRESS !== undefined,
    ...(desktopError ? { desktopError } : {}),
    ...(desktop ? { kind: desktop.kind } : {}),
  };
  // A compositor still starting may answer later: only a settled answer is kept.
  if (desktop) rt.facts.set('probe', facts);
  return facts;
}

export function probe(rt: HyprRuntime, ctx: AdapterContext): Promise<Unavailable> {
  return probeWith(() => probeFacts(rt, ctx), [...CAPS, ...WINDOW_CAPS, 'inspect'], async (facts, out) => {
    const lacking = (tools: string[]) => tools.filter((t) => facts.missing.includes(t));
    for (const cap of CAPS) {
      const l = lacking(NEEDS[cap]!);
      if (l.length > 0) out[cap] = lackingTools(l, DOCS);
    }
    if (facts.desktopError) {
      for (const cap of [...CAPS, ...WINDOW_CAPS]) out[cap] ??= `no Wayland session: ${facts.desktopError}`;
    } else if (facts.kind === 'sway' && lacking(SWAY_NEEDS).length > 0) {
      for (const cap of [...WINDOW_CAPS, 'screenshot' as const, 'click' as const, 'drag' as const, 'scroll' as const]) out[cap] ??= lackingTools(SWAY_NEEDS, DOCS);
    } else if (facts.kind === 'hyprland' && lacking(['python3', 'perl']).length === 2) {
      for (const cap of [...WINDOW_CAPS, 'screenshot' as const]) out[cap] ??= `neither python3 nor perl in the guest: the Hyprland IPC client needs one (${DOCS})`;
    }
    if (!facts.atspi || !facts.bus) out.inspect = ATSPI_REASON;
    const cloneRepo = await cloneRepoUnavailable(ctx, facts.missing, DOCS);
    if (cloneRepo) out.clone_repo = cloneRepo;
  });
}
