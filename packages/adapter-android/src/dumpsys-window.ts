/**
 * `dumpsys window windows` parser (format: /work/notes/android-contract.md §4). Reads, per
 * window block, the header `Window #N Window{<hex> u<user> <title>}:`, `package=`, the frame
 * (`frame=[l,t][r,b]` on the `Frames:` line, or the older `mFrame=`), and visibility
 * (`isVisible=`, else `isOnScreen=`, else `mViewVisibility=0x0`); then `mCurrentFocus=` and
 * `mFocusedApp=`. Every other line is ignored, so newer fields do not break it.
 */
export interface ParsedWindow {
  id: string;
  title: string;
  package: string;
  x: number;
  y: number;
  width: number;
  height: number;
  visible: boolean;
  exiting: boolean;
}

export interface WindowDump {
  windows: ParsedWindow[];
  focusedId?: string;
  /** `pkg/activity` of mFocusedApp (the foreground activity), if any. */
  focusedApp?: string;
}

const HEADER = /^\s*Window #\d+ Window\{([0-9a-f]+) u\d+ (.*?)( EXITING)?\}:?\s*$/;
const RECT = (name: string): RegExp => new RegExp(`(?:^|\\s)${name}=\\[(-?\\d+),(-?\\d+)\\]\\[(-?\\d+),(-?\\d+)\\]`);

function flag(block: string, name: string): boolean | undefined {
  const m = new RegExp(`(?:^|\\s)${name}=(true|false)\\b`, 'm').exec(block);
  return m ? m[1] === 'true' : undefined;
}

function parseBlock(id: string, title: string, exiting: boolean, block: string): ParsedWindow {
  const pkg = /\spackage=([A-Za-z0-9_.]+)/.exec(block)?.[1] ?? (title.includes('/') ? title.split('/')[0]! : '');
  const framesLine = block.split('\n').find((l) => /^\s*Frames:/.test(l));
  const rect = (framesLine ? RECT('frame').exec(framesLine) : null) ?? RECT('mFrame').exec(block);
  const [l, t, r, b] = rect ? rect.slice(1, 5).map(Number) : [0, 0, 0, 0];
  let visible = flag(block, 'isVisible') ?? flag(block, 'isOnScreen');
  if (visible === undefined) {
    const vis = /mViewVisibility=0x([0-9a-f]+)/.exec(block);
    visible = vis ? Number.parseInt(vis[1]!, 16) === 0 : false;
  }
  return { id, title, package: pkg, x: l!, y: t!, width: Math.max(0, r! - l!), height: Math.max(0, b! - t!), visible, exiting };
}

export function parseWindowDump(text: string): WindowDump {
  const lines = text.split('\n');
  const windows: ParsedWindow[] = [];
  let current: { id: string; title: string; exiting: boolean; body: string[] } | undefined;
  const flush = (): void => {
    if (current) windows.push(parseBlock(current.id, current.title, current.exiting, current.body.join('\n')));
    current = undefined;
  };
  for (const line of lines) {
    const h = HEADER.exec(line);
    if (h) {
      flush();
      current = { id: h[1]!, title: h[2]!, exiting: Boolean(h[3]), body: [] };
      continue;
    }
    // A block ends at the first line indented like the header or less (the summary lines).
    if (current && /^ {0,2}\S/.test(line)) flush();
    current?.body.push(line);
  }
  flush();
  const focus = /mCurrentFocus=Window\{([0-9a-f]+) /.exec(text);
  const app = /mFocusedApp=(?:AppWindowToken\{[^}]*token=Token\{[0-9a-f]+ )?ActivityRecord\{[0-9a-f]+ u\d+ ([^\s}]+)/.exec(text);
  return { windows, focusedId: focus?.[1], focusedApp: app?.[1] };
}

/** `com.example/.Main` → `com.example/com.example.Main` (am's short form expanded). */
export function fullComponent(component: string): string {
  const [pkg, cls] = component.split('/');
  if (!pkg || !cls) return component;
  return `${pkg}/${cls.startsWith('.') ? pkg + cls : cls}`;
}
