// Windows-MCP 0.8.2's tools (src/windows_mcp/tools/*.py at cba5769) over the simulated desktop.
// Strings returned are the real ones where the source is read (cited per tool); where a tool
// reaches something the stand-in does not have (web, toasts, registry hives) it says so.
import { dedent, tabulate, activeWindowText, semanticTree, windowsText } from './format.ts';
import { shellReply } from './ps-envelopes.ts';
import {
  QUARANTINE_MESSAGE, SNAPSHOT_FIRST, ToolError, asBool, asLoc, capture, point, pyTitle,
  quarantined, resolveLabel, sleep, type ToolCtx, type ToolFn,
} from './tool-kit.ts';
import { FsError } from './winfs.ts';

type A = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? undefined : String(v));

function target(a: A, ctx: ToolCtx, required = true): { x: number; y: number } | undefined {
  if (ctx.faults.snapshotFirst && !ctx.d.lastSnapshot) throw new ToolError(SNAPSHOT_FIRST);
  const loc = asLoc(a.loc);
  if (loc === null && (a.label === undefined || a.label === null)) {
    if (!required) return undefined;
    throw new ToolError('Either loc or label must be provided.');
  }
  if (a.label !== undefined && a.label !== null) return resolveLabel(ctx.d, Number(a.label));
  return point(loc);
}

/** _snapshot_helpers.build_snapshot_response: metadata, desktops, windows, optional UI tree, image. */
function snapshotResponse(ctx: ToolCtx, o: { vision: boolean; tree: boolean; note?: string }): (string | { png: Buffer })[] {
  const { d } = ctx;
  let meta = `Cursor Position: (${d.pointer.x}, ${d.pointer.y})\n`;
  let png: Buffer | undefined;
  if (o.vision) {
    const shot = capture(ctx);
    png = shot.png;
    if (shot.scale < 1) {
      const k = Math.round((1 / shot.scale) * 1e6) / 1e6;
      meta += `Screenshot Original Size: (${d.screen.width},${d.screen.height})\n` +
        `Screenshot Coordinate Scale: ${pyNum(k)} — image pixels are downscaled; multiply every image pixel coordinate by ${pyNum(k)} before passing to Click, Move, Scroll, or any loc= argument ` +
        `(e.g. image pixel (200, 150) → screen coordinate (${pyRound(200 * k)}, ${pyRound(150 * k)}))\n`;
    } else meta += `Screenshot Size: (${d.screen.width},${d.screen.height})\n`;
    meta += 'Screenshot Backend: standin\n';
  }
  if (o.note) meta += `${o.note}\n`;
  const desk = tabulate([['Default Desktop']], ['Name']);
  let text = dedent(['', `    ${meta}`, '    Active Desktop:', `    ${desk}`, '', '    All Desktops:', `    ${desk}`, '', '    Focused Window:',
    `    ${activeWindowText(d, 'No active window found')}`, '', '    Opened Windows:', `    ${windowsText(d, 'No windows found')}`, '    '].join('\n'));
  if (o.tree) text += dedent(['', '', '    UI Tree:', `    ${semanticTree(d) || 'No elements found.'}`].join('\n'));
  return png ? [text, { png }] : [text];
}
/** Python prints a float that is whole with ".0"; 1.333333 stays as is. */
const pyNum = (n: number) => (Number.isInteger(n) ? `${n}.0` : String(n));
/** Python's round(): half to even. */
const pyRound = (n: number) => { const f = Math.floor(n); const r = n - f; return r > 0.5 || (r === 0.5 && f % 2 === 1) ? f + 1 : f; };

export const TOOLS_082: Record<string, ToolFn> = {
  async App(a, { d }) {
    const mode = str(a.mode) ?? 'launch';
    const name = str(a.name);
    if (mode === 'launch') {
      if (!name) throw new ToolError("'NoneType' object has no attribute 'lower'");
      return d.launch(name) ? `${pyTitle(name)} launched.` : `${pyTitle(name)} not found in start menu.`;
    }
    if (mode === 'switch') {
      if (!name) throw new ToolError("'NoneType' object has no attribute 'title'");
      const w = d.findWindow(name);
      if (!w) return `Application ${pyTitle(name)} not found.`;
      const was = w.status === 'Minimized';
      d.focus(w);
      return was ? `Restored ${pyTitle(w.title)} from minimized and switched to it.` : `Switched to ${pyTitle(w.title)} window.`;
    }
    const w = name ? d.findWindow(name) : d.focusedWindow;
    if (!w) return name ? `Application ${pyTitle(name)} not found.` : 'No active window found';
    if (w.status === 'Minimized') return `${w.title} is minimized`;
    if (w.status === 'Maximized') return `${w.title} is maximized`;
    const loc = Array.isArray(a.window_loc) ? a.window_loc.map(Number) : [w.x, w.y];
    const size = Array.isArray(a.window_size) ? a.window_size.map(Number) : [w.width, w.height];
    Object.assign(w, { x: loc[0], y: loc[1], width: size[0], height: size[1] });
    return `${w.title} resized to ${size[0]}x${size[1]} at ${loc[0]},${loc[1]}.`;
  },

  async PowerShell(a, { d, signal }) {
    return shellReply(d, String(a.command), signal, Number(a.timeout ?? 30) * 1000, (e) => `Error executing command: ${e instanceof Error ? e.message : e}`);
  },

  async FileSystem(a, { d }) {
    const desktop = `${d.home}\\Desktop`;
    const p = d.fs.resolve(String(a.path), desktop);
    const dest = a.destination ? d.fs.resolve(String(a.destination), desktop) : undefined;
    try {
      switch (a.mode) {
        case 'read': {
          if (!d.fs.exists(p)) return `Error: File not found: ${p}`;
          if (d.fs.isDir(p)) return `Error: Path is not a file: ${p}`;
          const content = d.fs.read(p).toString('utf8').replace(/\r\n/g, '\n');
          if (a.offset !== undefined && a.offset !== null || a.limit !== undefined && a.limit !== null) {
            const lines = content.split(/(?<=\n)/);
            const start = Math.max(0, Number(a.offset ?? 1) - 1);
            const end = a.limit ? start + Number(a.limit) : lines.length;
            return `File: ${p}\nLines ${start + 1}-${Math.min(end, lines.length)} of ${lines.length}:\n${lines.slice(start, end).join('')}`;
          }
          return `File: ${p}\n${content}`;
        }
        case 'write': {
          if (a.content === undefined || a.content === null) return 'Error: content parameter is required for write mode.';
          const size = d.fs.write(p, Buffer.from(String(a.content).replace(/\r?\n/g, '\r\n'), 'utf8'), { append: asBool(a.append), mkdirs: true });
          return `${asBool(a.append) ? 'Appended to' : 'Written to'} ${p} (${size.toLocaleString('en-US')} bytes)`;
        }
        case 'copy': case 'move': {
          if (!dest) return `Error: destination parameter is required for ${a.mode} mode.`;
          if (!d.fs.exists(p)) return `Error: Source not found: ${p}`;
          if (d.fs.exists(dest) && !asBool(a.overwrite)) return `Error: Destination already exists: ${dest}. Set overwrite=True to replace.`;
          if (a.mode === 'move') { d.fs.rename(p, dest); return `Moved: ${p} -> ${dest}`; }
          d.fs.copy(p, dest);
          return `Copied file: ${p} -> ${dest}`;
        }
        case 'delete': {
          if (!d.fs.exists(p)) return `Error: Path not found: ${p}`;
          const dir = d.fs.isDir(p);
          if (dir && d.fs.list(p).length && !asBool(a.recursive)) return `Error: Directory is not empty: ${p}. Set recursive=True to delete non-empty directories.`;
          d.fs.remove(p, true);
          return dir ? `Deleted directory: ${p}` : `Deleted file: ${p}`;
        }
        case 'list': {
          if (!d.fs.exists(p)) return `Error: Directory not found: ${p}`;
          if (!d.fs.isDir(p)) return `Error: Path is not a directory: ${p}`;
          const names = d.fs.list(p);
          if (!names.length) return `Directory ${p} is empty.`;
          return `Directory: ${p}\n${names.map((n) => { const s = d.fs.stat(`${p}\\${n}`)!; return s.dir ? `[DIR]  ${n}` : `[FILE] ${n} (${s.size.toLocaleString('en-US')} bytes)`; }).join('\n')}`;
        }
        case 'search': {
          if (!a.pattern) return 'Error: pattern parameter is required for search mode.';
          const hits = d.fs.search(p, String(a.pattern), asBool(a.recursive));
          return hits.length ? `Search: "${a.pattern}" in ${p} (${hits.length} matches)\n${hits.join('\n')}` : `No matches found for "${a.pattern}" in ${p}`;
        }
        case 'info': {
          const s = d.fs.stat(p);
          if (!s) return `Error: Path not found: ${p}`;
          return `Path: ${s.path}\nType: ${s.dir ? 'Directory' : 'File'}\nSize: ${s.size.toLocaleString('en-US')} bytes\nModified: ${s.mtime.toISOString()}`;
        }
        default:
          return `Error: Unknown mode "${a.mode}". Use: read, write, copy, move, delete, list, search, info.`;
      }
    } catch (e) {
      if (e instanceof FsError) return `Error in File tool: ${e.message}`;
      throw e;
    }
  },

  async Snapshot(a, ctx) {
    const vision = asBool(a.use_vision);
    const tree = a.use_ui_tree === undefined ? true : asBool(a.use_ui_tree);
    if (asBool(a.use_dom) && !tree) return ['Error capturing desktop state: use_dom=True requires use_ui_tree=True. Please try again.'];
    if (vision && quarantined(ctx.faults)) return [`Error capturing desktop state: ${QUARANTINE_MESSAGE}. Please try again.`];
    ctx.d.snapshots += 1;
    ctx.d.lastSnapshot = tree ? ctx.d.interactiveElements() : [];
    return snapshotResponse(ctx, { vision, tree });
  },

  async Screenshot(_a, ctx) {
    if (quarantined(ctx.faults)) return [`Error capturing screenshot: ${QUARANTINE_MESSAGE}. Please try again.`];
    return snapshotResponse(ctx, { vision: true, tree: false, note: 'UI Tree: Skipped for fast screenshot-only capture. Call Snapshot when you need interactive or scrollable elements.' });
  },

  async Click(a, ctx) {
    const { x, y } = target(a, ctx)!;
    const button = str(a.button) ?? 'left';
    const clicks = Number(a.clicks ?? 1);
    ctx.d.click(x, y, button, clicks);
    return `${({ 0: 'Hover', 1: 'Single', 2: 'Double' } as Record<number, string>)[clicks] ?? 'None'} ${button} clicked at (${x},${y}).`;
  },

  async Type(a, ctx) {
    const { x, y } = target(a, ctx)!;
    const text = String(a.text);
    ctx.d.click(x, y, 'left', 1);
    if (asBool(a.clear)) { ctx.d.shortcut('ctrl+a'); ctx.d.shortcut('backspace'); }
    ctx.d.insert(text, a.caret_position === 'start' ? 'start' : 'end');
    if (asBool(a.press_enter)) ctx.d.insert('\n');
    return `Typed ${text} at (${x},${y}).`;
  },

  async Scroll(a, ctx) {
    const at = target(a, ctx, false);
    const type = str(a.type) ?? 'vertical';
    const direction = str(a.direction) ?? 'down';
    const times = Number(a.wheel_times ?? 1);
    if (type === 'vertical' && !['up', 'down'].includes(direction)) return 'Invalid direction. Use "up" or "down".';
    if (type === 'horizontal' && !['left', 'right'].includes(direction)) return 'Invalid direction. Use "left" or "right".';
    ctx.d.scroll(at, type, direction, times);
    return at ? `Scrolled ${type} ${direction} by ${times} wheel times at (${at.x},${at.y}).` : '';
  },

  async Move(a, ctx) {
    const { x, y } = target(a, ctx)!;
    if (asBool(a.drag)) { ctx.d.drag(x, y); return `Dragged to (${x},${y}).`; }
    ctx.d.move(x, y);
    return `Moved the mouse pointer to (${x},${y}).`;
  },

  async Shortcut(a, { d }) {
    d.shortcut(String(a.shortcut));
    return `Pressed ${a.shortcut}.`;
  },

  async Wait(a, { signal }) {
    await sleep(Number(a.duration) * 1000, signal);
    return `Waited for ${a.duration} seconds.`;
  },

  async WaitFor(a, { d, signal }) {
    const aliases: Record<string, string> = { text: 'text_exists', window: 'active_window', element: 'element_exists', enabled: 'element_enabled', focused: 'focused_element' };
    let cond = String(a.condition).trim().toLowerCase().replace(/-/g, '_');
    cond = aliases[cond] ?? cond;
    const timeout = Number(a.timeout ?? 10);
    const interval = Number(a.interval ?? 0.25);
    if (!['text_exists', 'active_window', 'element_exists', 'element_enabled', 'focused_element'].includes(cond)) throw new ToolError('condition must be one of: text_exists, active_window, element_exists, element_enabled, focused_element');
    if (timeout <= 0 || timeout > 120) throw new ToolError('timeout must be greater than 0 and at most 120 seconds');
    if (interval <= 0 || interval > 5) throw new ToolError('interval must be greater than 0 and at most 5 seconds');
    const text = str(a.text);
    const win = str(a.window_name);
    const has = (s: string | undefined, want: string | undefined) => want === undefined || (s ?? '').toLowerCase().includes(want.toLowerCase());
    const started = Date.now();
    for (let attempts = 1; ; attempts++) {
      let hit: string | undefined;
      const els = d.interactiveElements();
      if (cond === 'text_exists') hit = [d.focusedWindow?.title, ...d.windows.map((w) => w.title), ...els.flatMap((e) => [e.name, e.value])].some((s) => s !== undefined && has(s, text)) ? `text ${JSON.stringify(text).replace(/^"|"$/g, "'")} appeared` : undefined;
      else if (cond === 'active_window') hit = has(d.focusedWindow?.title, win ?? text) && d.focusedWindow ? `active window matched '${d.focusedWindow.title}'` : undefined;
      else { const e = els.find((e) => (cond !== 'focused_element' || e.focused) && (has(e.name, text) || has(e.controlType, text)) && has(e.window.title, win)); hit = e ? `${cond === 'focused_element' ? 'focused element' : 'element'} matched '${e.name}'` : undefined; }
      if (hit) return `WaitFor condition '${cond}' satisfied after ${((Date.now() - started) / 1000).toFixed(2)}s and ${attempts} attempt(s): ${hit}.`;
      if (Date.now() - started >= timeout * 1000) throw new ToolError(`Timed out after ${timeout.toFixed(2)}s waiting for '${cond}': condition was not met.`);
      await sleep(interval * 1000, signal);
    }
  },

  async Scrape(a) {
    throw new ToolError(`stand-in: Scrape has no network here (asked for ${a.url})`);
  },

  async MultiSelect(a, ctx) {
    if (ctx.faults.snapshotFirst && !ctx.d.lastSnapshot) throw new ToolError(SNAPSHOT_FIRST);
    const locs = (asLoc(a.locs) ?? (asLoc(a.labels) ?? []).map((l) => { const p = resolveLabel(ctx.d, Number(l)); return [p.x, p.y]; })) as number[][];
    if (!locs.length) throw new ToolError('Either locs or labels must be provided.');
    const ctrl = a.press_ctrl === undefined ? true : asBool(a.press_ctrl);
    for (const [x, y] of locs) ctx.d.click(x, y, 'left', 1);
    if (ctrl) ctx.d.keys.push('ctrl(held)');
    return `Multi-selected elements at:\n${locs.map(([x, y]) => `(${x},${y})`).join('\n')}`;
  },

  async MultiEdit(a, ctx) {
    if (ctx.faults.snapshotFirst && !ctx.d.lastSnapshot) throw new ToolError(SNAPSHOT_FIRST);
    const edits = ((asLoc(a.locs) as unknown[][] | null) ?? ((asLoc(a.labels) ?? []) as unknown[][]).map(([l, t]) => { const p = resolveLabel(ctx.d, Number(l)); return [p.x, p.y, t]; }));
    if (!edits.length) throw new ToolError('Either locs or labels must be provided.');
    for (const [x, y, t] of edits) { ctx.d.click(Number(x), Number(y), 'left', 1); ctx.d.insert(String(t)); }
    return `Multi-edited elements at: ${edits.map(([x, y, t]) => `(${x},${y}) with text '${t}'`).join(', ')}`;
  },

  async Clipboard(a, { d }) {
    if (a.mode === 'get') return d.clipboard ? `Clipboard content:\n${d.clipboard}` : 'Clipboard is empty or contains non-text data.';
    if (a.mode === 'set') {
      if (a.text === undefined || a.text === null) return 'Error: text parameter required for set mode.';
      d.clipboard = String(a.text);
      return `Clipboard set to: ${[...d.clipboard].slice(0, 100).join('')}${[...d.clipboard].length > 100 ? '...' : ''}`;
    }
    return 'Error: mode must be either "get" or "set".';
  },

  async Process(a, { d }) {
    if (a.mode === 'kill') {
      const pid = a.pid === undefined || a.pid === null ? undefined : Number(a.pid);
      const name = str(a.name);
      if (pid === undefined && !name) return 'Error: Provide either pid or name to kill a process.';
      const n = d.kill(pid !== undefined ? { pid } : { name });
      return n ? `Terminated ${n} process(es) matching ${pid ?? name}.` : `No process found matching ${pid ?? name}.`;
    }
    const rows = d.processes().filter((p) => !a.name || p.name.toLowerCase().includes(String(a.name).toLowerCase())).slice(0, Number(a.limit ?? 20));
    return `Processes (${rows.length}):\n${rows.map((p) => `${p.pid}\t${p.name}\t${p.memoryMb.toFixed(1)} MB`).join('\n')}`;
  },

  async Notification(a) {
    return `Notification sent: ${a.title} - ${a.message}`;
  },

  async Registry(a) {
    return `Error: stand-in has no registry (mode=${a.mode}, path=${a.path}).`;
  },
};

