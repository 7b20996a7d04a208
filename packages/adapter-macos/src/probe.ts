/**
 * Probe: what this machine cannot do now, and why — never throws. It opens what the session would
 * open anyway: the SSH link (one command checks the in-guest tools and tar) and, unless vnc is
 * "none", the RFB client. With the in-guest tools on, the window-list script runs once, which is
 * what finds a missing Accessibility grant.
 */
import type { AdapterContext, Capability } from '@vmhub/core';
import { DOCS, guestToolsOff } from './errors.ts';
import { osaListWindows } from './in-guest.ts';
import type { MacosRuntime } from './runtime.ts';

const SCREEN: Capability[] = ['screenshot', 'click', 'type', 'key', 'drag', 'scroll'];
const SSH: Capability[] = ['exec', 'put_file', 'get_file', 'clone_repo', 'launch'];
const WINDOWS: Capability[] = ['list_windows', 'focus', 'close'];
const CHECK = 'for t in "$@"; do command -v "$t" >/dev/null 2>&1 || printf "missing %s\\n" "$t"; done; exit 0';
/** In-guest programs each capability needs on the second path. */
const TOOLS: Partial<Record<Capability, string[]>> = {
  screenshot: ['screencapture'], click: ['cliclick'], drag: ['cliclick'], scroll: ['cliclick', 'osascript'],
  type: ['osascript'], key: ['osascript'], list_windows: ['osascript'], focus: ['osascript'], close: ['osascript'],
  launch: ['open'], clone_repo: ['tar'],
};

const message = (err: unknown) => (err as Error).message.replace(/^\[vmhub\] \[adapter-macos\] /, '');

export async function probe(rt: MacosRuntime, ctx: AdapterContext): Promise<Partial<Record<Capability, string>>> {
  const out: Partial<Record<Capability, string>> = {};
  const o = rt.options;
  let missing: string[] = [];
  try {
    const res = await rt.run(ctx, ['/bin/sh', '-c', CHECK, 'vmhub-probe', 'tar', 'open', ...(o.in_guest_tools ? ['screencapture', 'cliclick', 'osascript'] : [])], { label: 'probe', timeoutMs: 20_000 });
    missing = res.stdout.toString('utf8').split('\n').filter((l) => l.startsWith('missing ')).map((l) => l.slice(8).trim());
  } catch (err) {
    const why = `SSH to the guest does not work: ${message(err)}`;
    for (const c of [...SSH, ...WINDOWS, ...(rt.viaVnc ? [] : SCREEN)]) out[c] = why;
    if (!o.in_guest_tools) for (const c of WINDOWS) out[c] = guestToolsOff(c).message;
  }
  if (rt.viaVnc) {
    try {
      await rt.vnc.client();
    } catch (err) {
      for (const c of SCREEN) out[c] = `VNC does not work: ${message(err)}`;
    }
  }
  const lacking = (c: Capability) => (TOOLS[c] ?? []).filter((t) => missing.includes(t));
  for (const c of [...SSH, ...WINDOWS, ...(rt.viaVnc ? [] : SCREEN)]) {
    if (out[c]) continue;
    if (WINDOWS.includes(c) && !o.in_guest_tools) { out[c] = guestToolsOff(c).message; continue; }
    const l = lacking(c);
    if (l.length) out[c] = `${l.join(', ')} not found in the guest (PATH ${o.tool_path}) (${DOCS})`;
  }
  if (o.in_guest_tools && !out.list_windows) {
    try {
      await osaListWindows(rt, ctx);
    } catch (err) {
      for (const c of [...WINDOWS, ...(rt.viaVnc ? [] : (['click', 'type', 'key', 'drag', 'scroll'] as Capability[]))]) out[c] ??= message(err);
    }
  }
  return out;
}
