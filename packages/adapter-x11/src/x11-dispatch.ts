/**
 * vm_dispatch verbs: small, declared, schema-checked escape hatches. Each runs argv (or a fixed
 * script with positional args) — never a shell string built from its arguments. Each runs on the
 * lease's session, which core hands it: its options and its channel, nothing looked up by lease.
 */
import { Type, type AdapterContext, type VerbSpec } from '@vmhub/core';
import { x11Error } from './errors.ts';
import { OWN_FN } from './selection-sh.ts';
import { readSelection } from './x11-get-clipboard.ts';
import type { X11Session } from './runtime.ts';
import { formatWindowId, listWindowsWith, parseWindowId, resolveWindow } from './x11-list-windows.ts';

const SET_SELECTION = OWN_FN + String.raw`
d=$(mktemp -d) || exit 70
cat > "$d/text"
own "$1" "$d/text" || { rm -rf "$d"; exit 71; }
rm -rf "$d"
`;

const Selection = Type.Optional(Type.Union([Type.Literal('clipboard'), Type.Literal('primary')], { default: 'clipboard', description: 'X selection, default clipboard' }));

const guestOf = (ctx: AdapterContext, session: X11Session) => session.runtime.guest(ctx);

export const x11Verbs: Record<string, VerbSpec<X11Session>> = {
  xdotool_search: {
    description: 'Find window ids whose name, class or classname matches a regex (or by pid): {name|class|classname|pid, visible_only?}.',
    args: Type.Object({
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      class: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      classname: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      pid: Type.Optional(Type.Integer({ minimum: 1 })),
      visible_only: Type.Optional(Type.Boolean({ default: false })),
    }, { additionalProperties: false }),
    async run(ctx, args, session) {
      const keys = (['name', 'class', 'classname', 'pid'] as const).filter((k) => args[k] !== undefined);
      if (keys.length !== 1) throw x11Error('INVALID_REQUEST', 'xdotool_search: give exactly one of name, class, classname, pid');
      const by = keys[0]!;
      const argv = ['xdotool', 'search', ...(args.visible_only ? ['--onlyvisible'] : []), `--${by}`, '--', String(args[by])];
      const res = await (await guestOf(ctx, session)).run(argv, { okCodes: [0, 1] });
      const ids = res.stdout.toString('utf8').split('\n').map((l) => parseWindowId(l)).filter((n): n is number => n !== undefined);
      return { windows: ids.map(formatWindowId) };
    },
  },
  window_geometry: {
    description: 'Geometry of one window (client area, screen pixels): {window: id or exact title}.',
    args: Type.Object({ window: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false }),
    async run(ctx, args, session) {
      const w = resolveWindow(await listWindowsWith(await guestOf(ctx, session)), String(args.window));
      return { id: w.id, x: w.x, y: w.y, width: w.width, height: w.height };
    },
  },
  get_clipboard: {
    description: 'Read the clipboard (or primary selection) as text: {selection?}.',
    args: Type.Object({ selection: Selection }, { additionalProperties: false }),
    async run(ctx, args, session) {
      return readSelection(await guestOf(ctx, session), args.selection === 'primary' ? 'primary' : 'clipboard');
    },
  },
  set_clipboard: {
    description: 'Set the clipboard (or primary selection) to text without pasting: {text, selection?}.',
    args: Type.Object({ text: Type.String({ maxLength: 200000 }), selection: Selection }, { additionalProperties: false }),
    async run(ctx, args, session) {
      // Returns once xclip owns the selection, so a get_clipboard right after reads the new text.
      await (await guestOf(ctx, session)).sh(SET_SELECTION, [String(args.selection ?? 'clipboard')], { stdin: String(args.text), needs: ['xclip', 'mktemp', 'grep'] });
      return { set: true, bytes: Buffer.byteLength(String(args.text)) };
    },
  },
  mouse_location: {
    description: 'Where the pointer is now, and the window under it: {}.',
    args: Type.Object({}, { additionalProperties: false }),
    async run(ctx, _args, session) {
      const res = await (await guestOf(ctx, session)).run(['xdotool', 'getmouselocation', '--shell']);
      const text = res.stdout.toString('utf8');
      const num = (k: string) => Number(new RegExp(`^${k}=(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
      const win = num('WINDOW');
      return { x: num('X'), y: num('Y'), window: Number.isFinite(win) ? formatWindowId(win) : undefined };
    },
  },
};
