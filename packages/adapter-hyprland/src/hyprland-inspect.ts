/**
 * Inspect: the AT-SPI accessibility tree, dumped by a small python3-pyatspi helper sent on stdin
 * (the approach of adapter-x11; this adapter's own helper). On Wayland the bus is found through
 * the session D-Bus ($XDG_RUNTIME_DIR/bus), not an X root property, and extents are not global —
 * Wayland clients do not know where their window is — so nodes carry extents only as the
 * toolkit reports them (often window-relative). Without that stack: CAPABILITY_UNAVAILABLE with
 * the reason probe() reports.
 */
import type { AdapterContext, ElementNode } from '@vmhub/core';
import { hyprError } from './errors.ts';
import type { HyprRuntime } from './runtime.ts';
import { ATSPI_REASON, probeFacts } from './probe.ts';

const MAX_NODES = 2000;

const ATSPI_DUMP = String.raw`
import json, sys
import pyatspi
limit, left = int(sys.argv[1]), [int(sys.argv[2])]
def safe(fn, default=None):
    try: return fn()
    except Exception: return default
def dump(acc, depth):
    left[0] -= 1
    node = {"role": safe(acc.getRoleName, "") or "unknown"}
    name = safe(lambda: acc.name)
    if name: node["name"] = name
    ext = safe(lambda: acc.queryComponent().getExtents(pyatspi.WINDOW_COORDS))
    if ext is not None and ext.width > 0 and ext.height > 0: node.update(x=ext.x, y=ext.y, width=ext.width, height=ext.height)
    states = safe(lambda: sorted(pyatspi.stateToString(s) for s in acc.getState().getStates()))
    if states: node["states"] = states
    if depth < limit:
        kids = []
        for i in range(safe(lambda: acc.childCount, 0)):
            if left[0] <= 0: break
            child = safe(lambda: acc.getChildAtIndex(i))
            if child is not None: kids.append(dump(child, depth + 1))
        if kids: node["children"] = kids
    return node
json.dump(dump(pyatspi.Registry.getDesktop(0), 0), sys.stdout)
`;

export async function inspect(rt: HyprRuntime, ctx: AdapterContext, input: { max_depth: number }): Promise<{ source: string; tree: ElementNode }> {
  const facts = await probeFacts(rt, ctx);
  if (!facts.atspi || !facts.bus) {
    throw hyprError('CAPABILITY_UNAVAILABLE', `inspect is unavailable: ${ATSPI_REASON}`, {
      hint: 'Use vm_screenshot to see the screen; the operator can add at-spi2-core, python3-pyatspi and a session D-Bus to the golden image.',
      details: { reason: ATSPI_REASON },
    });
  }
  const guest = await rt.guest(ctx);
  const res = await guest.run(['python3', '-', String(input.max_depth), String(MAX_NODES)], { stdin: ATSPI_DUMP, timeoutMs: 30_000, maxOutputBytes: 8 * 1024 * 1024, label: 'AT-SPI dump' });
  try {
    return { source: 'at-spi', tree: JSON.parse(res.stdout.toString('utf8')) as ElementNode };
  } catch (err) {
    throw hyprError('INTERNAL', `the AT-SPI dump was not JSON: ${res.stdout.toString('utf8').slice(0, 200)}`, { cause: err });
  }
}
