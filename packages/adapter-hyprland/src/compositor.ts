/**
 * The two compositors behind one interface: outputs, windows, focus, close and exec.
 * - sway through `swaymsg` (ships with sway, so it is on every sway machine and speaks the i3-ipc
 *   binary protocol — magic "i3-ipc", length, type — for us; a client of our own would need a
 *   socket-capable interpreter in the guest for no gain): GET_OUTPUTS, GET_TREE, RUN_COMMAND
 *   `[con_id=N] focus|kill` and `exec`.
 * - Hyprland through its request socket (hypr-ipc.ts): `j/monitors`, `j/clients`, dispatchers in
 *   the instance's syntax. Clients that are not mapped are skipped; the focused one has
 *   focusHistoryID 0.
 * Window geometry here is logical; callers convert to screen pixels (layout.ts).
 */
import { hyprError } from './errors.ts';
import type { Guest } from './guest.ts';
import { dispatch, hyprRequests, parseJson, type DispatchSyntax } from './hypr-ipc.ts';
import { hyprMonitors, swayOutputs, type OutputGeom } from './layout.ts';
import type { Desktop } from './desktop.ts';

export interface WaylandWindow {
  /** sway: the con_id in decimal; Hyprland: the address, 0x + hex. */
  id: string;
  title: string;
  class: string;
  /** Logical rect. */
  x: number; y: number; width: number; height: number;
  focused: boolean;
  visible: boolean;
  pid?: number;
}

export interface Compositor {
  readonly kind: Desktop['kind'];
  outputs(guest: Guest): Promise<OutputGeom[]>;
  windows(guest: Guest): Promise<WaylandWindow[]>;
  focus(guest: Guest, id: string): Promise<void>;
  close(guest: Guest, id: string): Promise<void>;
  /** Run a fixed command line (never agent text) through the compositor's own exec. */
  exec(guest: Guest, command: string): Promise<void>;
}

export function compositorFor(desktop: Desktop): Compositor {
  return desktop.kind === 'sway' ? sway : hyprland(desktop);
}

// ---- sway -------------------------------------------------------------------------------

async function swaymsg(guest: Guest, args: string[]): Promise<unknown> {
  const res = await guest.run(['swaymsg', '-r', ...args], { okCodes: [0, 1, 2], label: 'swaymsg', maxOutputBytes: 16 * 1024 * 1024 });
  const text = res.stdout.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw hyprError('INTERNAL', `swaymsg ${args.join(' ')} failed: ${(res.stderr.toString('utf8') || text).trim().slice(0, 300)}`);
  }
  return json;
}

async function swayCommand(guest: Guest, command: string): Promise<void> {
  const json = await swaymsg(guest, ['--', command]);
  const results = Array.isArray(json) ? json as Array<{ success?: boolean; error?: string }> : [];
  const failed = results.find((r) => r.success !== true);
  if (failed || results.length === 0) throw hyprError('INTERNAL', `sway refused "${command}": ${failed?.error ?? 'no reply'}`);
}

interface SwayNode {
  id: number; type?: string; name?: string | null; app_id?: string | null; pid?: number;
  focused?: boolean; visible?: boolean;
  rect?: { x: number; y: number; width: number; height: number };
  window_rect?: { x: number; y: number; width: number; height: number };
  window_properties?: { class?: string; instance?: string };
  nodes?: SwayNode[]; floating_nodes?: SwayNode[];
}

export function swayWindows(tree: SwayNode): WaylandWindow[] {
  const out: WaylandWindow[] = [];
  const walk = (n: SwayNode, scratch: boolean) => {
    const isView = (n.type === 'con' || n.type === 'floating_con') && (n.app_id !== undefined || n.window_properties !== undefined) && (n.nodes?.length ?? 0) === 0;
    if (isView && n.rect) {
      const wr = n.window_rect ?? { x: 0, y: 0, width: n.rect.width, height: n.rect.height };
      const w: WaylandWindow = {
        id: String(n.id),
        title: n.name ?? '',
        class: n.app_id ?? n.window_properties?.class ?? '',
        x: n.rect.x + wr.x, y: n.rect.y + wr.y, width: wr.width, height: wr.height,
        focused: n.focused === true,
        visible: !scratch && n.visible !== false,
      };
      if (typeof n.pid === 'number' && n.pid > 0) w.pid = n.pid;
      out.push(w);
    }
    const inScratch = scratch || (n.type === 'workspace' && n.name === '__i3_scratch');
    for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])]) walk(c, inScratch);
  };
  walk(tree, false);
  return out;
}

function conId(id: string): number {
  if (!/^[0-9]{1,10}$/.test(id)) throw hyprError('INVALID_REQUEST', `"${id}" is not a sway window id (a con_id number from vm_list_windows)`);
  return Number(id);
}

const sway: Compositor = {
  kind: 'sway',
  async outputs(guest) { return swayOutputs(await swaymsg(guest, ['-t', 'get_outputs'])); },
  async windows(guest) { return swayWindows(await swaymsg(guest, ['-t', 'get_tree']) as SwayNode); },
  async focus(guest, id) { await swayCommand(guest, `[con_id=${conId(id)}] focus`); },
  // sway's kill asks the client to close (xdg_toplevel.close), like a click on its close button.
  async close(guest, id) { await swayCommand(guest, `[con_id=${conId(id)}] kill`); },
  async exec(guest, command) { await swayCommand(guest, `exec ${command}`); },
};

// ---- Hyprland ---------------------------------------------------------------------------

interface HyprClient {
  address: string; mapped: boolean; hidden: boolean; visible?: boolean;
  at: [number, number]; size: [number, number];
  workspace?: { id: number; name: string };
  class: string; title: string; pid: number; focusHistoryID: number;
}

interface HyprMonitor { activeWorkspace?: { id: number }; specialWorkspace?: { id: number } }

export function hyprWindows(clients: HyprClient[], monitors: HyprMonitor[]): WaylandWindow[] {
  const shown = new Set<number>();
  for (const m of monitors) {
    if (m.activeWorkspace) shown.add(m.activeWorkspace.id);
    if (m.specialWorkspace && m.specialWorkspace.id !== 0) shown.add(m.specialWorkspace.id);
  }
  return clients.filter((c) => c.mapped).map((c) => {
    const w: WaylandWindow = {
      id: c.address,
      title: c.title ?? '',
      class: c.class ?? '',
      x: c.at[0], y: c.at[1], width: c.size[0], height: c.size[1],
      focused: c.focusHistoryID === 0,
      visible: !c.hidden && c.visible !== false && (c.workspace === undefined || shown.size === 0 || shown.has(c.workspace.id)),
    };
    if (c.pid > 0) w.pid = c.pid;
    return w;
  });
}

function address(id: string): string {
  if (!/^0x[0-9a-f]{1,16}$/i.test(id)) throw hyprError('INVALID_REQUEST', `"${id}" is not a Hyprland window address (0x… from vm_list_windows)`);
  return id.toLowerCase();
}

function hyprland(desktop: Desktop): Compositor {
  const state = desktop.hypr!;
  const run = async (guest: Guest, action: Parameters<typeof dispatch>[1]) => {
    // Keep the syntax that worked: a 0.55 with a hyprlang config answers the old one.
    state.syntax = await dispatch(guest, action, state.syntax as DispatchSyntax);
  };
  return {
    kind: 'hyprland',
    async outputs(guest) {
      const [monitors = ''] = await hyprRequests(guest, ['j/monitors']);
      return hyprMonitors(parseJson(monitors, 'j/monitors'));
    },
    async windows(guest) {
      const [clients = '', monitors = ''] = await hyprRequests(guest, ['j/clients', 'j/monitors']);
      return hyprWindows(parseJson<HyprClient[]>(clients, 'j/clients'), parseJson<HyprMonitor[]>(monitors, 'j/monitors'));
    },
    focus: (guest, id) => run(guest, { kind: 'focus', address: address(id) }),
    close: (guest, id) => run(guest, { kind: 'close', address: address(id) }),
    exec: (guest, command) => run(guest, { kind: 'exec', command }),
  };
}
