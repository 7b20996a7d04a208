/**
 * Probe: which declared capabilities cannot work on this device, and why — one shell command
 * checks every tool with `command -v`, whether `input` knows `keycombination` (chords, Android
 * 13+) and whether the clipboard helper is installed (`pm list packages <pkg>` prints
 * `package:<pkg>`). Kept for the session.
 */
import type { AdapterContext, Capability } from '@vmhub/core';
import { probeWith, type Unavailable } from '@vmhub/core/adapter-kit';
import { DOCS } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';

export const NEEDS: Partial<Record<Capability, string[]>> = {
  screenshot: ['screencap'],
  click: ['input'],
  drag: ['input'],
  scroll: ['input', 'wm'],
  type: ['input'],
  key: ['input'],
  paste: ['input', 'am'],
  list_windows: ['dumpsys'],
  focus: ['dumpsys', 'am', 'monkey'],
  close: ['dumpsys', 'am'],
  launch: ['dumpsys', 'am', 'monkey'],
  inspect: ['uiautomator'],
  clone_repo: ['tar'],
};
const TOOLS = [...new Set([...Object.values(NEEDS).flat(), 'pm', 'cat'])];

const PROBE_SCRIPT = String.raw`
pkg=$1; shift
for t in "$@"; do command -v "$t" >/dev/null 2>&1 || printf 'missing %s\n' "$t"; done
if command -v input >/dev/null 2>&1; then input 2>&1 | grep -q keycombination && printf 'chords yes\n'; fi
if command -v pm >/dev/null 2>&1; then pm list packages "$pkg" 2>/dev/null | grep -qx "package:$pkg" && printf 'clipboard yes\n'; fi
printf 'sdk %s\n' "$(getprop ro.build.version.sdk 2>/dev/null)"
`;

export interface ProbeFacts {
  missing: string[];
  /** `input keycombination` exists (chords). */
  chords: boolean;
  /** The clipboard helper package is installed. */
  clipboard: boolean;
  sdk?: number;
}

export function probeFacts(rt: AndroidRuntime, ctx: AdapterContext): Promise<ProbeFacts> {
  return rt.facts.remember('probe', async () => {
    const device = await rt.device(ctx);
    const res = await device.sh(PROBE_SCRIPT, [rt.options.clipboard_package, ...TOOLS], { timeoutMs: 30_000 });
    const lines = res.stdout.toString('utf8').split('\n');
    const sdk = Number.parseInt(lines.find((l) => l.startsWith('sdk '))?.slice(4) ?? '', 10);
    return {
      missing: lines.filter((l) => l.startsWith('missing ')).map((l) => l.slice(8).trim()),
      chords: lines.includes('chords yes'),
      clipboard: lines.includes('clipboard yes'),
      ...(Number.isFinite(sdk) ? { sdk } : {}),
    };
  });
}

export function probe(rt: AndroidRuntime, ctx: AdapterContext): Promise<Unavailable> {
  return probeWith(() => probeFacts(rt, ctx), Object.keys(NEEDS) as Capability[], (facts, out) => {
    for (const [cap, tools] of Object.entries(NEEDS) as [Capability, string[]][]) {
      const lacking = tools.filter((t) => facts.missing.includes(t));
      if (lacking.length) out[cap] = `the device has no ${lacking.join(', ')} on the adb shell's PATH (${DOCS})`;
    }
    if (!out.paste && !facts.clipboard) {
      out.paste = `no clipboard helper: install Clipper (${rt.options.clipboard_package}, answers "am broadcast -a ${rt.options.clipboard_action}") or set clipboard_* options (${DOCS}); stock Android has no shell clipboard command`;
    }
  }, 'the device did not answer the probe');
}
