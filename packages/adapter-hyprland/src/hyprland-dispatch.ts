/**
 * vm_dispatch verbs: small, declared, schema-checked escape hatches. Each runs argv or a fixed
 * script with positional args — never a shell string built from its arguments — on the lease's
 * session, which core hands it.
 */
import { Type, type VerbSpec } from '@vmhub/core';
import type { HyprlandSession } from './runtime.ts';
import { readWindows, resolveWindow } from './hyprland-list-windows.ts';
import { toScreenRect } from './layout.ts';
import { readClipboard } from './hyprland-get-clipboard.ts';

// wl-copy forks a server holding the clipboard that inherits stdout: stdio to /dev/null.
const SET_CLIPBOARD = 'exec wl-copy >/dev/null 2>&1';

export const hyprlandVerbs: Record<string, VerbSpec<HyprlandSession>> = {
  compositor_info: {
    description: 'Which compositor this adapter drives and how: {} → {compositor, version?, dispatch_syntax?, wayland_display}.',
    args: Type.Object({}, { additionalProperties: false }),
    async run(ctx, _args, session) {
      const d = await session.runtime.desktop(ctx);
      return { compositor: d.kind, wayland_display: d.env.WAYLAND_DISPLAY, ...(d.hypr ? { version: d.hypr.version, dispatch_syntax: d.hypr.syntax, signature: d.hypr.signature } : {}) };
    },
  },
  list_outputs: {
    description: 'Outputs with logical geometry and scale, and how screenshot pixels map to them: {}.',
    args: Type.Object({}, { additionalProperties: false }),
    async run(ctx, _args, session) {
      const l = await session.runtime.refreshLayout(ctx);
      return { outputs: l.outputs, screen: l.screen, screen_scale: l.scale, screen_origin: l.origin, ...(l.output ? { output: l.output } : {}) };
    },
  },
  window_geometry: {
    description: 'Geometry of one window in screenshot pixels and in logical compositor coordinates: {window: id or exact title}.',
    args: Type.Object({ window: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false }),
    async run(ctx, args, session) {
      const w = resolveWindow(await readWindows(session.runtime, ctx), String(args.window));
      const layout = await session.runtime.layout(ctx);
      return { id: w.id, ...toScreenRect(layout, w), logical: { x: w.x, y: w.y, width: w.width, height: w.height } };
    },
  },
  get_clipboard: {
    description: 'Read the clipboard as text: {}.',
    args: Type.Object({}, { additionalProperties: false }),
    async run(ctx, _args, session) {
      return readClipboard(session.runtime, ctx);
    },
  },
  set_clipboard: {
    description: 'Set the clipboard to text without pasting: {text}.',
    args: Type.Object({ text: Type.String({ maxLength: 200000 }) }, { additionalProperties: false }),
    async run(ctx, args, session) {
      const guest = await session.runtime.guest(ctx);
      await guest.sh(SET_CLIPBOARD, [], { stdin: String(args.text), needs: ['wl-copy'] });
      return { set: true, bytes: Buffer.byteLength(String(args.text)) };
    },
  },
};
