// Windows-MCP 0.5.8's tools (src/windows_mcp/__main__.py at f2d8aa7, tag v0.5.8): the "-Tool"
// names, no labels, no auth, no FileSystem/Clipboard; State-Tool prints no screenshot size.
import { activeWindowText, dedent, interactiveTable058, windowsText } from './format.ts';
import { shellReply } from './ps-envelopes.ts';
import { QUARANTINE_MESSAGE, ToolError, asLoc, capture, point, quarantined, sleep, type ToolFn } from './tool-kit.ts';
import { TOOLS_082 } from './tools-082.ts';

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export const TOOLS_058: Record<string, ToolFn> = {
  'App-Tool': (a, ctx) => TOOLS_082.App({ ...a, mode: a.mode }, ctx),

  async 'Powershell-Tool'(a, { d, signal }) {
    // desktop.execute_command: subprocess.run(..., errors='ignore', timeout=25) — text mode, so \r\n → \n
    return shellReply(d, String(a.command), signal, 25_000, () => 'Response: Command execution failed', (s) => s.replace(/\r\n/g, '\n'));
  },

  async 'State-Tool'(a, ctx) {
    const vision = a.use_vision === true;
    // 0.5.8 has no try/except here: a failing capture is a tool error
    if (vision && quarantined(ctx.faults)) throw new ToolError(QUARANTINE_MESSAGE);
    const { d } = ctx;
    d.snapshots += 1;
    d.lastSnapshot = d.interactiveElements();
    const text = dedent([
      '', '    Default Language of User:', '    English (United States) with encoding: utf-8', '                            ', '    Focused App:',
      `    ${activeWindowText(d, 'No active app found')}`, '', '    Opened Apps:', `    ${windowsText(d, 'No apps running in background')}`, '',
      '    List of Interactive Elements:', `    ${interactiveTable058(d)}`, '', '    List of Scrollable Elements:', '    No scrollable elements', '    ',
    ].join('\n'));
    return vision ? [text, { png: capture(ctx).png }] : [text];
  },

  async 'Click-Tool'(a, { d }) {
    const { x, y } = point(asLoc(a.loc));
    const button = str(a.button) ?? 'left';
    const clicks = Number(a.clicks ?? 1);
    d.click(x, y, button, clicks);
    return `${({ 1: 'Single', 2: 'Double', 3: 'Triple' } as Record<number, string>)[clicks] ?? 'None'} ${button} clicked at (${x},${y}).`;
  },

  async 'Type-Tool'(a, { d }) {
    const { x, y } = point(asLoc(a.loc));
    d.click(x, y, 'left', 1);
    if (a.clear === true) { d.shortcut('ctrl+a'); d.shortcut('backspace'); }
    d.insert(String(a.text));
    if (a.press_enter === true) d.insert('\n');
    return `Typed ${a.text} at (${x},${y}).`;
  },

  async 'Scroll-Tool'(a, ctx) {
    const loc = asLoc(a.loc);
    if (loc && loc.length !== 2) throw new ToolError('Location must be a list of exactly 2 integers [x, y]');
    return TOOLS_082.Scroll({ ...a, label: undefined }, { ...ctx, faults: {} });
  },

  async 'Drag-Tool'(a, { d }) {
    const { x, y } = point(asLoc(a.to_loc), 'to_loc must be a list of exactly 2 integers [x, y]');
    d.drag(x, y);
    return `Dragged the element to (${x},${y}).`;
  },

  async 'Move-Tool'(a, { d }) {
    const { x, y } = point(asLoc(a.to_loc), 'to_loc must be a list of exactly 2 integers [x, y]');
    d.move(x, y);
    return `Moved the mouse pointer to (${x},${y}).`;
  },

  'Shortcut-Tool': (a, ctx) => TOOLS_082.Shortcut(a, ctx),

  async 'Wait-Tool'(a, { signal }) {
    await sleep(Number(a.duration) * 1000, signal);
    return `Waited for ${a.duration} seconds.`;
  },

  async 'Scrape-Tool'(a) {
    throw new ToolError(`stand-in: Scrape has no network here (asked for ${a.url})`);
  },
};
