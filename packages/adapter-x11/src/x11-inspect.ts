/**
 * Inspect: the AT-SPI accessibility tree, dumped by a small Python helper (python3-pyatspi) sent
 * on stdin — the golden needs at-spi2-core, python3-pyatspi and apps with accessibility on (GTK
 * does it by default; Qt needs QT_ACCESSIBILITY=1). Without that stack the capability answers
 * CAPABILITY_UNAVAILABLE with the reason, and probe() reports the same.
 */
import type { AdapterContext, ElementNode } from '@vmhub/core';
import { x11Error } from './errors.ts';
import type { X11Runtime } from './runtime.ts';
import { ATSPI_REASON, probeFacts } from './probe.ts';

const MAX_NODES = 2000;

export const ATSPI_DUMP = String.raw`
import json, sys
import pyatspi
max_depth, budget = int(sys.argv[1]), [int(sys.argv[2])]
def node(acc, depth):
    budget[0] -= 1
    out = {"role": acc.getRoleName() or "unknown"}
    try:
        if acc.name: out["name"] = acc.name
    except Exception: pass
    try:
        e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        if e.width > 0 and e.height > 0: out.update(x=e.x, y=e.y, width=e.width, height=e.height)
    except Exception: pass
    try:
        out["states"] = sorted(pyatspi.stateToString(s) if hasattr(pyatspi, "stateToString") else str(s).lower().replace("state_", "") for s in acc.getState().getStates())
    except Exception: pass
    if depth < max_depth:
        kids = []
        try: count = acc.childCount
        except Exception: count = 0
        for i in range(count):
            if budget[0] <= 0: break
            try:
                child = acc.getChildAtIndex(i)
                if child is not None: kids.append(node(child, depth + 1))
            except Exception: pass
        if kids: out["children"] = kids
    return out
json.dump(node(pyatspi.Registry.getDesktop(0), 0), sys.stdout)
`;

export async function inspect(rt: X11Runtime, ctx: AdapterContext, input: { max_depth: number }): Promise<{ source: string; tree: ElementNode }> {
  const facts = await probeFacts(rt, ctx);
  if (!facts.atspi) {
    throw x11Error('CAPABILITY_UNAVAILABLE', `inspect is unavailable: ${ATSPI_REASON}`, {
      hint: 'Use vm_screenshot to see the screen; the operator can add at-spi2-core and python3-pyatspi to the golden image.',
      details: { reason: ATSPI_REASON },
    });
  }
  const guest = await rt.guest(ctx);
  const depth = input.max_depth; // 1–50, checked by core's schema
  let res;
  try {
    res = await guest.run(['python3', '-', String(depth), String(MAX_NODES)], { stdin: ATSPI_DUMP, timeoutMs: 30_000, maxOutputBytes: 8 * 1024 * 1024 });
  } catch (err) {
    if (err instanceof Error && /connect to accessibility bus/i.test(err.message)) {
      throw x11Error('CAPABILITY_UNAVAILABLE', `inspect is unavailable now: no accessibility bus runs on ${rt.options.display} (at-spi-bus-launcher starts with the first accessible app): open a GTK app, or start at-spi-bus-launcher in the session`, {
        hint: 'Use vm_screenshot for now; the tree appears once an accessible app runs.',
        cause: err,
      });
    }
    throw err;
  }
  try {
    return { source: 'at-spi', tree: JSON.parse(res.stdout.toString('utf8')) as ElementNode };
  } catch (err) {
    throw x11Error('INTERNAL', `the AT-SPI dump was not JSON: ${res.stdout.toString('utf8').slice(0, 200)}`, { cause: err });
  }
}
