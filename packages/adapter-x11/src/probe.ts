/**
 * Probe: which declared capabilities cannot work on this machine now, and why. One guest command
 * checks every tool with `command -v`, whether the display answers and whether python3 can import
 * pyatspi; the answer is kept for the session once the display has answered.
 */
import type { AdapterContext, Capability } from '@vmhub/core';
import { cloneRepoUnavailable, lackingTools, probeWith, type Unavailable } from '@vmhub/core/adapter-kit';
import { DOCS } from './errors.ts';
import type { X11Runtime } from './runtime.ts';

export const ATSPI_REASON = 'the golden image has no AT-SPI stack (at-spi2-core + python3-pyatspi)';

/** Guest programs each capability needs (coreutils, sh, grep and sed are assumed). */
export const NEEDS: Partial<Record<Capability, string[]>> = {
  screenshot: ['xwd', 'xwininfo'],
  click: ['xdotool', 'xwininfo'],
  drag: ['xdotool', 'xwininfo'],
  scroll: ['xdotool', 'xwininfo'],
  type: ['xdotool'],
  key: ['xdotool'],
  paste: ['xdotool', 'xclip', 'xprop'],
  list_windows: ['xprop', 'xwininfo'],
  focus: ['wmctrl', 'xprop', 'xwininfo'],
  close: ['wmctrl', 'xprop', 'xwininfo'],
  launch: ['setsid', 'wmctrl', 'xprop', 'xwininfo'],
  dispatch: ['xdotool', 'xclip'],
};
const X_CAPS = Object.keys(NEEDS) as Capability[];
const TOOLS = [...new Set([...Object.values(NEEDS).flat(), 'tar', 'gzip'])];

const PROBE_SCRIPT = String.raw`
for t in "$@"; do command -v "$t" >/dev/null 2>&1 || printf 'missing %s\n' "$t"; done
xwininfo -root >/dev/null 2>&1 || printf 'nodisplay\n'
if command -v python3 >/dev/null 2>&1 && python3 -c 'import pyatspi' >/dev/null 2>&1; then printf 'atspi yes\n'; else printf 'atspi no\n'; fi
wmctrl -m >/dev/null 2>&1 || printf 'nowm\n'
`;

export interface ProbeFacts {
  missing: string[];
  display: boolean;
  wm: boolean;
  atspi: boolean;
}

export async function probeFacts(rt: X11Runtime, ctx: AdapterContext): Promise<ProbeFacts> {
  const cached = rt.facts.peek('probe');
  if (cached) return cached;
  const guest = await rt.guest(ctx);
  const res = await guest.sh(PROBE_SCRIPT, TOOLS, { timeoutMs: 20_000 });
  const lines = res.stdout.toString('utf8').split('\n');
  const facts: ProbeFacts = {
    missing: lines.filter((l) => l.startsWith('missing ')).map((l) => l.slice(8).trim()),
    display: !lines.includes('nodisplay'),
    wm: !lines.includes('nowm'),
    atspi: lines.includes('atspi yes'),
  };
  // A display still starting may answer later: only a settled answer is kept for the session.
  if (facts.display) rt.facts.set('probe', facts);
  return facts;
}

export function probe(rt: X11Runtime, ctx: AdapterContext): Promise<Unavailable> {
  return probeWith(() => probeFacts(rt, ctx), [...X_CAPS, 'inspect'], async (facts, out) => {
    for (const cap of X_CAPS) {
      const needs = cap === 'screenshot' && rt.options.screenshot_gzip ? [...NEEDS[cap]!, 'gzip'] : NEEDS[cap]!;
      const lacking = needs.filter((t) => facts.missing.includes(t));
      if (lacking.length > 0) out[cap] = lackingTools(lacking, DOCS);
      else if (!facts.display) out[cap] = `the X display ${rt.options.display} is not answering (is Xvfb running?)`;
      else if (!facts.wm && ['list_windows', 'focus', 'close', 'launch'].includes(cap)) out[cap] = `no EWMH window manager runs on ${rt.options.display}: start openbox (or another EWMH WM) in the golden image`;
    }
    if (!facts.atspi) out.inspect = ATSPI_REASON;
    const cloneRepo = await cloneRepoUnavailable(ctx, facts.missing, DOCS);
    if (cloneRepo) out.clone_repo = cloneRepo;
  });
}
