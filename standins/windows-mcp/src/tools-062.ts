// Windows-MCP 0.6.2's tools (src/windows_mcp/__main__.py at tag v0.6.2, 653229f): the unsuffixed
// names already, but `Shell` (not PowerShell), no labels, no Clipboard/FileSystem/Screenshot, and a
// Snapshot that prints elements as pipe rows and no screenshot size.
import { activeWindowText, dedent, tabulate, windowsText } from './format.ts';
import { shellReply } from './ps-envelopes.ts';
import { QUARANTINE_MESSAGE, ToolError, capture, quarantined, type ToolFn } from './tool-kit.ts';
import { TOOLS_082 } from './tools-082.ts';

export const TOOLS_062: Record<string, ToolFn> = {
  App: (a, ctx) => TOOLS_082.App(a, ctx),

  async Shell(a, { d, signal }) {
    // desktop.execute_command(command, timeout): bytes decoded, so \r\n stays
    return shellReply(d, String(a.command), signal, Number(a.timeout ?? 10) * 1000, (e) => `Response: Command execution failed: Error: ${e instanceof Error ? e.message : e}`);
  },

  async Snapshot(a, ctx) {
    const vision = a.use_vision === true || (typeof a.use_vision === 'string' && a.use_vision.toLowerCase() === 'true');
    // no try/except around the capture in 0.6.2: a failing screenshot is a tool error
    if (vision && quarantined(ctx.faults)) throw new ToolError(QUARANTINE_MESSAGE);
    const { d } = ctx;
    d.snapshots += 1;
    d.lastSnapshot = d.interactiveElements();
    const desk = tabulate([['Default Desktop']], ['Name']);
    const rows = d.lastSnapshot.map((e, i) => `${i}|${e.window.title}|${e.controlTypeName}|${e.name}|(${e.x + Math.floor(e.width / 2)},${e.y + Math.floor(e.height / 2)})|${e.focused ? 'True' : 'False'}`);
    const elements = rows.length ? ['# id|window|control_type|name|coords|focus', ...rows].join('\n') : 'No interactive elements';
    const text = dedent([
      '', '    Active Desktop:', `    ${desk}`, '', '    All Desktops:', `    ${desk}`, '        ', '    Focused Window:',
      `    ${activeWindowText(d, 'No active window found')}`, '', '    Opened Windows:', `    ${windowsText(d, 'No windows found')}`, '',
      '    List of Interactive Elements:', `    ${elements}`, '', '    List of Scrollable Elements:', '    No scrollable elements', '    ',
    ].join('\n'));
    return vision ? [text, { png: capture(ctx).png }] : [text];
  },

  Click: (a, ctx) => TOOLS_082.Click(a, ctx),
  Type: (a, ctx) => TOOLS_082.Type(a, ctx),
  Scroll: (a, ctx) => TOOLS_082.Scroll(a, ctx),
  Move: (a, ctx) => TOOLS_082.Move(a, ctx),
  Shortcut: (a, ctx) => TOOLS_082.Shortcut(a, ctx),
  Wait: (a, ctx) => TOOLS_082.Wait(a, ctx),
  Scrape: (a, ctx) => TOOLS_082.Scrape(a, ctx),
  MultiSelect: (a, ctx) => TOOLS_082.MultiSelect(a, ctx),
  MultiEdit: (a, ctx) => TOOLS_082.MultiEdit(a, ctx),
};
