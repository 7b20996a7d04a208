/**
 * Element refs: what vm_inspect answers an agent can act on. Core, not the adapter, walks the
 * adapter's tree once: it keeps at most `max_nodes` elements (depth first, as read), gives every
 * kept element with bounds a short ref (`e1`, `e2`, … in that order) and remembers each ref's box
 * in the lease's screen state. `vm_click {ref}` clicks the centre of the box, `vm_type {ref}` clicks
 * it first (focus) and then types: the same screen geometry coordinates and marks use.
 *
 * Refs are valid for the lease's current screen: until the next vm_inspect replaces them, or the
 * screen state is reset (a restore, a restart, a new session). A ref that is not among the latest
 * is INVALID_REQUEST naming what to do; the element may have moved since it was read, which the
 * agent sees in its next screenshot, as with a mark.
 */
import { VmhubError } from '../errors.ts';
import type { ElementNode } from '../shapes.ts';
import type { ElementBox, ScreenState } from './types.ts';

export interface Reffed {
  tree: ElementNode;
  /** Elements kept. */
  nodes: number;
  /** True when `maxNodes` cut the tree here (the adapter sent more). */
  cut: boolean;
  refs: Map<string, ElementBox>;
}

const hasBox = (n: ElementNode): n is ElementNode & { x: number; y: number; width: number; height: number } =>
  n.x !== undefined && n.y !== undefined && (n.width ?? 0) > 0 && (n.height ?? 0) > 0;

/** A copy of `tree` with at most `maxNodes` elements, refs on those with bounds. */
export function withRefs(tree: ElementNode, maxNodes: number): Reffed {
  const refs = new Map<string, ElementBox>();
  let nodes = 0;
  let cut = false;
  const copy = (n: ElementNode): ElementNode => {
    nodes += 1;
    const { children, ref: _adapterRef, ...own } = n;
    const out: ElementNode = { ...own };
    if (hasBox(n)) {
      const ref = `e${refs.size + 1}`;
      out.ref = ref;
      refs.set(ref, { role: n.role, ...(n.name !== undefined ? { name: n.name } : {}), x: n.x, y: n.y, width: n.width, height: n.height });
    }
    if (children?.length) {
      const kept: ElementNode[] = [];
      for (const child of children) {
        if (nodes >= maxNodes) { cut = true; break; }
        kept.push(copy(child));
      }
      if (kept.length) out.children = kept;
    }
    return out;
  };
  return { tree: copy(tree), nodes, cut, refs };
}

const INSPECT_FIRST = 'call vm_inspect first and use a ref it returns';

/** The box of `ref` among the lease's latest refs. */
export function refBox(screen: ScreenState, ref: string): ElementBox {
  const refs = screen.refs;
  if (!refs?.size) throw new VmhubError('INVALID_REQUEST', `ref ${ref}: this lease has no element refs yet; ${INSPECT_FIRST}`);
  const box = refs.get(ref);
  if (!box) throw new VmhubError('INVALID_REQUEST', `ref ${ref} is not among the latest vm_inspect's refs (e1..e${refs.size}); ${INSPECT_FIRST} again`);
  return box;
}
