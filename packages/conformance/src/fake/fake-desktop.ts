/**
 * The fake desktop's state. It lives in a JSON file inside the guest (`/.vmhub-desktop.json`)
 * and is reached only through the lease's GuestChannel, as a real adapter reaches its target:
 * the adapter keeps no state of its own, so any process holding a channel sees the same desktop.
 */
import { VmhubError, type AdapterContext, type GuestChannel, type WindowInfo } from '@vmhub/core';

export const DESKTOP_FILE = '/.vmhub-desktop.json';
export const TITLE_BAR = 24;
const SOURCE = 'adapter-fake';

export type Rgb = [number, number, number];

export interface FakeWindow {
  id: string;
  title: string;
  class: string;
  x: number;
  y: number;
  width: number;
  height: number;
  visible: boolean;
  color: Rgb;
  /** Text typed or pasted while this window had focus. */
  text: string;
  pid: number;
}

export interface DesktopState {
  screen: { width: number; height: number };
  /** Stacking order: the last window is on top. */
  windows: FakeWindow[];
  focused: string | null;
  clipboard: string;
  /** Everything typed or pasted, whichever window had focus. */
  typed: string;
  pointer: { x: number; y: number };
  clicks: { x: number; y: number; button: string; count: number; window: string | null }[];
  keys: string[];
  /** Keys held down by vm_key {action: "down"}, in press order (absent in older state files). */
  held?: string[];
  scrolls: { x: number; y: number; direction: string; amount: number }[];
  drags: { from: { x: number; y: number }; to: { x: number; y: number }; window: string | null }[];
  next: number;
}

/** Distinct body colours, assigned in order; title bars are the same hue, darker. */
export const PALETTE: Rgb[] = [[220, 50, 50], [50, 90, 220], [40, 170, 70], [230, 170, 30], [160, 60, 200], [30, 180, 190]];
export const BACKGROUND: Rgb = [30, 30, 38];

export function initialDesktop(): DesktopState {
  return {
    screen: { width: 1024, height: 768 },
    windows: [
      { id: 'w1', title: 'Terminal', class: 'fake-terminal', x: 40, y: 40, width: 480, height: 320, visible: true, color: PALETTE[0]!, text: '', pid: 1001 },
      { id: 'w2', title: 'Editor', class: 'fake-editor', x: 360, y: 240, width: 560, height: 400, visible: true, color: PALETTE[1]!, text: '', pid: 1002 },
    ],
    focused: 'w2',
    clipboard: 'fake clipboard',
    typed: '',
    pointer: { x: 0, y: 0 },
    clicks: [], keys: [], scrolls: [], drags: [],
    next: 3,
  };
}

export async function readDesktop(channel: GuestChannel): Promise<DesktopState> {
  try {
    return JSON.parse((await channel.getFile(DESKTOP_FILE)).toString('utf8')) as DesktopState;
  } catch (err) {
    if (VmhubError.is(err) && err.code === 'NOT_FOUND') return initialDesktop();
    throw err;
  }
}

const queues = new Map<string, Promise<unknown>>();

/** Read, change and write the desktop, one change at a time per machine in this process. */
export async function withDesktop<T>(ctx: AdapterContext, change: (state: DesktopState) => T | Promise<T>): Promise<T> {
  const key = ctx.machine.identity;
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(async () => {
    const channel = await ctx.channel();
    const state = await readDesktop(channel);
    const result = await change(state);
    await channel.putFile(DESKTOP_FILE, Buffer.from(JSON.stringify(state)));
    return result;
  });
  queues.set(key, run);
  try {
    return await run;
  } finally {
    if (queues.get(key) === run) queues.delete(key);
  }
}

export async function viewDesktop(ctx: AdapterContext): Promise<DesktopState> {
  return readDesktop(await ctx.channel());
}

export function windowAt(state: DesktopState, x: number, y: number): FakeWindow | undefined {
  for (let i = state.windows.length - 1; i >= 0; i--) {
    const w = state.windows[i]!;
    if (w.visible && x >= w.x && x < w.x + w.width && y >= w.y && y < w.y + w.height) return w;
  }
  return undefined;
}

export function findWindow(state: DesktopState, ref: string): FakeWindow {
  const w = state.windows.find((x) => x.id === ref) ?? state.windows.find((x) => x.title === ref);
  if (!w) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] no window with id or title "${ref}"; windows: ${state.windows.map((x) => `${x.id} "${x.title}"`).join(', ') || 'none'}`, { source: SOURCE });
  return w;
}

export function raise(state: DesktopState, w: FakeWindow): void {
  state.windows = [...state.windows.filter((x) => x !== w), w];
  state.focused = w.id;
}

export function toInfo(state: DesktopState, w: FakeWindow): WindowInfo {
  return { id: w.id, title: w.title, class: w.class, x: w.x, y: w.y, width: w.width, height: w.height, focused: state.focused === w.id, visible: w.visible };
}
