// The simulated Windows desktop behind the stand-in: windows with geometry and z-order, a focus,
// one text box per editor window, a pointer, a clipboard and a record of every input, so tests can
// check what a tool call did. Coordinates are virtual-desktop pixels, as Windows-MCP's are.
import { WinFs } from './winfs.ts';

export type WindowStatus = 'Normal' | 'Minimized' | 'Maximized';

export interface SimWindow {
  handle: number;
  title: string;
  pid: number;
  /** The process image, e.g. notepad.exe. */
  process: string;
  x: number;
  y: number;
  width: number;
  height: number;
  status: WindowStatus;
  focused: boolean;
  /** The editor's text, for windows that have a text box (Notepad). */
  text?: string;
  scroll: { vertical: number; horizontal: number };
  /** Geometry before maximize, to restore. */
  restore?: { x: number; y: number; width: number; height: number };
}

export interface UiElement {
  window: SimWindow;
  controlType: 'Button' | 'Menu Item' | 'Edit' | 'List Item';
  /** uiautomation's ControlTypeName, as 0.5.x prints it. */
  controlTypeName: string;
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  value?: string;
  focused: boolean;
  act(d: Desktop): void;
}

export interface Screen {
  width: number;
  height: number;
}

export const TITLE_BAR = 32;
export const MENU_BAR = 28;
export const TASKBAR = 48;

export class Desktop {
  screen: Screen;
  windows: SimWindow[] = []; // z-order: the last is on top
  pointer = { x: 0, y: 0 };
  clicks: { x: number; y: number; button: string; clicks: number }[] = [];
  scrolls: { x?: number; y?: number; type: string; direction: string; wheel_times: number }[] = [];
  keys: string[] = [];
  drags: { from?: { x: number; y: number }; to: { x: number; y: number } }[] = [];
  typed: { text: string; window?: string }[] = [];
  clipboard = '';
  /** ctrl+a selected the focused editor's whole text: the next keystroke replaces it. */
  selectAll = false;
  fs: WinFs;
  home: string;
  powershell: string[] = [];
  snapshots = 0;
  screenshots = 0;
  calls: { tool: string; args: unknown }[] = [];
  /** Set by Snapshot/State-Tool: the interactive elements its labels index. */
  lastSnapshot: UiElement[] | null = null;
  launched: { name: string; pid: number }[] = [];
  private nextHandle = 0x30a12;
  private nextPid = 6000;

  constructor(screen: Screen, home = 'C:\\Users\\vmhub') {
    this.screen = { ...screen };
    this.home = home;
    this.fs = new WinFs(home);
    this.pointer = { x: Math.floor(screen.width / 2), y: Math.floor(screen.height / 2) };
    this.open('explorer', 'Documents - File Explorer', { x: 860, y: 260, width: 1000, height: 640 });
    this.open('notepad', 'Untitled - Notepad', { x: 180, y: 140, width: 1100, height: 720 });
  }

  /** Files by path as first written (lookups are case-insensitive, as on Windows). */
  get files(): Map<string, Buffer> {
    return this.fs.files;
  }

  /** The text of the first Notepad window (the text box tests type into). */
  get textBox(): string {
    return this.windows.find((w) => w.text !== undefined)?.text ?? '';
  }

  get focusedWindow(): SimWindow | undefined {
    return this.windows.find((w) => w.focused);
  }

  open(app: string, title: string, geom?: { x: number; y: number; width: number; height: number }): SimWindow {
    const n = this.windows.length;
    const g = geom ?? { x: 240 + 40 * n, y: 180 + 40 * n, width: 900, height: 600 };
    const w: SimWindow = {
      handle: (this.nextHandle += 0x1a4),
      title,
      pid: (this.nextPid += 148),
      process: `${app}.exe`,
      ...g,
      status: 'Normal',
      focused: false,
      scroll: { vertical: 0, horizontal: 0 },
      ...(app === 'notepad' ? { text: '' } : {}),
    };
    this.windows.push(w);
    this.focus(w);
    return w;
  }

  /** Raises and focuses `w` (restoring it when minimized); `null` focuses the bare desktop. */
  focus(w: SimWindow | null): void {
    for (const o of this.windows) o.focused = false;
    this.selectAll = false;
    if (!w) return;
    if (w.status === 'Minimized') w.status = w.restore ? 'Maximized' : 'Normal';
    this.windows = [...this.windows.filter((o) => o !== w), w];
    w.focused = true;
  }

  close(w: SimWindow): void {
    const wasFocused = w.focused;
    this.windows = this.windows.filter((o) => o !== w);
    if (wasFocused) this.focus([...this.windows].reverse().find((o) => o.status !== 'Minimized') ?? null);
  }

  minimize(w: SimWindow): void {
    w.status = 'Minimized';
    if (w.focused) this.focus([...this.windows].reverse().find((o) => o !== w && o.status !== 'Minimized') ?? null);
  }

  toggleMaximize(w: SimWindow): void {
    if (w.status === 'Maximized' && w.restore) {
      Object.assign(w, w.restore);
      w.restore = undefined;
      w.status = 'Normal';
    } else {
      w.restore = { x: w.x, y: w.y, width: w.width, height: w.height };
      Object.assign(w, { x: 0, y: 0, width: this.screen.width, height: this.screen.height - TASKBAR, status: 'Maximized' });
    }
  }

  /** The elements of a window, in the order Snapshot lists (and labels) them. */
  elements(w: SimWindow): UiElement[] {
    const focusedEditor = w.focused && w.text !== undefined;
    const btn = (name: string, i: number, act: (d: Desktop) => void): UiElement => ({
      window: w, controlType: 'Button', controlTypeName: 'ButtonControl', name, focused: false,
      x: w.x + w.width - 46 * (3 - i), y: w.y, width: 46, height: TITLE_BAR, act,
    });
    const els: UiElement[] = [
      btn('Minimize', 0, (d) => d.minimize(w)),
      btn('Maximize', 1, (d) => d.toggleMaximize(w)),
      btn('Close', 2, (d) => d.close(w)),
    ];
    if (w.text !== undefined) {
      ['File', 'Edit', 'View'].forEach((name, i) => els.push({
        window: w, controlType: 'Menu Item', controlTypeName: 'MenuItemControl', name, focused: false,
        x: w.x + 8 + 56 * i, y: w.y + TITLE_BAR, width: 52, height: MENU_BAR, act: (d) => d.focus(w),
      }));
      const top = w.y + TITLE_BAR + MENU_BAR;
      els.push({
        window: w, controlType: 'Edit', controlTypeName: 'EditControl', name: 'Text Editor', value: w.text,
        focused: focusedEditor, x: w.x + 4, y: top, width: w.width - 8, height: w.y + w.height - top - 4,
        act: (d) => d.focus(w),
      });
    } else {
      for (const [i, name] of this.fs.list(`${this.home}\\Documents`).slice(0, 8).entries()) {
        els.push({
          window: w, controlType: 'List Item', controlTypeName: 'ListItemControl', name, focused: false,
          x: w.x + 16, y: w.y + TITLE_BAR + 16 + 28 * i, width: 300, height: 24, act: (d) => d.focus(w),
        });
      }
    }
    return els;
  }

  /** Windows as Snapshot walks them: the focused one first, then the rest from the top down. */
  visibleWindows(): SimWindow[] {
    const shown = [...this.windows].reverse().filter((w) => w.status !== 'Minimized');
    return [...shown.filter((w) => w.focused), ...shown.filter((w) => !w.focused)];
  }

  interactiveElements(): UiElement[] {
    return this.visibleWindows().flatMap((w) => this.elements(w));
  }

  windowAt(x: number, y: number): SimWindow | undefined {
    return [...this.windows].reverse().find((w) => w.status !== 'Minimized' && x >= w.x && x < w.x + w.width && y >= w.y && y < w.y + w.height);
  }

  click(x: number, y: number, button: string, clicks: number): void {
    this.pointer = { x, y };
    this.clicks.push({ x, y, button, clicks });
    if (clicks === 0) return; // hover
    const w = this.windowAt(x, y);
    if (!w) return this.focus(null);
    const el = this.elements(w).find((e) => x >= e.x && x < e.x + e.width && y >= e.y && y < e.y + e.height);
    if (button === 'left' && el) el.act(this);
    else this.focus(w);
    if (button === 'left' && clicks === 2 && el?.controlType === 'Edit') this.selectAll = true;
  }

  /** Inserts text into the focused editor (replacing a ctrl+a selection); returns false when none. */
  insert(text: string, at: 'end' | 'start' = 'end'): boolean {
    const w = this.focusedWindow;
    this.typed.push({ text, window: w?.title });
    if (!w || w.text === undefined) return false;
    if (this.selectAll) {
      w.text = text;
      this.selectAll = false;
    } else w.text = at === 'start' ? text + w.text : w.text + text;
    return true;
  }

  /** One Shortcut: `+`-joined key names, as Windows-MCP takes them. */
  shortcut(combo: string): void {
    this.keys.push(combo);
    const keys = combo.toLowerCase().split('+').map((k) => k.trim());
    const key = keys[keys.length - 1];
    const mods = new Set(keys.slice(0, -1));
    const w = this.focusedWindow;
    const ctrl = mods.has('ctrl') || mods.has('control');
    if (mods.has('alt') && key === 'f4') return void (w ? this.close(w) : undefined);
    if (mods.has('alt') && key === 'tab') {
      const order = [...this.windows].reverse().filter((o) => o.status !== 'Minimized');
      if (order.length > 1) this.focus(order[1]);
      return;
    }
    if (ctrl && key === 'a') return void (this.selectAll = w?.text !== undefined);
    if (ctrl && key === 'c' && w?.text !== undefined) return void (this.clipboard = w.text);
    if (ctrl && key === 'x' && w?.text !== undefined) {
      if (this.selectAll) { this.clipboard = w.text; w.text = ''; this.selectAll = false; }
      return;
    }
    if (ctrl && key === 'v') return void this.insert(this.clipboard);
    if (mods.size > 0 && !(mods.size === 1 && mods.has('shift'))) return; // other chords: recorded only
    if (key === 'enter' || key === 'return') return void this.insert('\n');
    if (key === 'tab') return void this.insert('\t');
    if (key === 'space') return void this.insert(' ');
    if ((key === 'backspace' || key === 'delete' || key === 'del') && w?.text !== undefined) {
      if (this.selectAll) { w.text = ''; this.selectAll = false; } else if (key === 'backspace') w.text = w.text.slice(0, -1);
      return;
    }
    if ([...key].length === 1) this.insert(mods.has('shift') ? key.toUpperCase() : key);
  }

  scroll(at: { x: number; y: number } | undefined, type: string, direction: string, times: number): void {
    if (at) this.pointer = { ...at };
    this.scrolls.push({ ...(at ?? {}), type, direction, wheel_times: times });
    const w = this.windowAt(this.pointer.x, this.pointer.y);
    if (!w) return;
    const sign = direction === 'up' || direction === 'left' ? -1 : 1;
    if (type === 'horizontal') w.scroll.horizontal = Math.max(0, w.scroll.horizontal + sign * times);
    else w.scroll.vertical = Math.max(0, w.scroll.vertical + sign * times);
  }

  move(x: number, y: number): void {
    this.pointer = { x, y };
  }

  /** Drags from the pointer (or `from`) to (x, y); a drag that starts on a title bar moves that window. */
  drag(x: number, y: number, from?: { x: number; y: number }): void {
    const start = from ?? { ...this.pointer };
    this.drags.push({ from: start, to: { x, y } });
    const w = this.windowAt(start.x, start.y);
    if (w && start.y < w.y + TITLE_BAR && start.x < w.x + w.width - 46 * 3 && w.status === 'Normal') {
      w.x += x - start.x;
      w.y += y - start.y;
      this.focus(w);
    }
    this.pointer = { x, y };
  }

  /** App launch: Start-menu names the stand-in knows. */
  launch(name: string): SimWindow | undefined {
    const n = name.trim().toLowerCase();
    const known: [RegExp, string, string][] = [
      [/^notepad/, 'notepad', 'Untitled - Notepad'],
      [/^(calc|calculator)/, 'calculatorapp', 'Calculator'],
      [/^(explorer|file explorer)/, 'explorer', 'File Explorer'],
      [/^(cmd|command prompt)/, 'cmd', 'Command Prompt'],
      [/^(powershell|windows powershell)/, 'powershell', 'Windows PowerShell'],
      [/^paint|^mspaint/, 'mspaint', 'Untitled - Paint'],
    ];
    const hit = known.find(([re]) => re.test(n));
    if (!hit) return undefined;
    const w = this.open(hit[1], hit[2]);
    this.launched.push({ name, pid: w.pid });
    return w;
  }

  /** App switch: the window whose title best matches (case-insensitive substring). */
  findWindow(name: string): SimWindow | undefined {
    const n = name.toLowerCase();
    const all = [...this.windows].reverse();
    return all.find((w) => w.title.toLowerCase() === n) ?? all.find((w) => w.title.toLowerCase().includes(n)) ?? all.find((w) => w.process.replace(/\.exe$/, '') === n);
  }

  processes(): { name: string; pid: number; memoryMb: number; title: string }[] {
    const system = [
      { name: 'System', pid: 4, memoryMb: 0.1, title: '' },
      { name: 'explorer', pid: 3312, memoryMb: 96.4, title: '' },
      { name: 'windows-mcp', pid: 2208, memoryMb: 71.2, title: '' },
    ];
    const own = this.windows.map((w) => ({ name: w.process.replace(/\.exe$/, ''), pid: w.pid, memoryMb: 24.5, title: w.title }));
    return [...system, ...own];
  }

  /** Stop-Process / Process kill: closes that process's windows. Returns how many. */
  kill(by: { pid?: number; name?: string }): number {
    const hit = this.windows.filter((w) => (by.pid !== undefined && w.pid === by.pid) || (by.name !== undefined && w.process.replace(/\.exe$/, '').toLowerCase() === by.name.toLowerCase().replace(/\.exe$/, '')));
    for (const w of hit) this.close(w);
    return hit.length;
  }
}
