/** click, type, key, paste, drag, scroll — with effects verified when the target gives probes. */
import { check, expectError, expectOk } from '../expect.ts';
import { centre, type CheckTable, type SuiteEnv } from './env.ts';

function offScreen(env: SuiteEnv): { x: number; y: number } | undefined {
  return env.screen ? { x: env.screen.width + 10, y: Math.floor(env.screen.height / 2) } : undefined;
}

const NO_SCREEN = 'the screen size is unknown (adapter declares neither screenshot nor screenSize()), so the router cannot reject off-screen points: implement screenSize()';

export const INPUT_CHECKS: CheckTable = {
  click: [
    {
      name: 'clicks inside the screen',
      async run(env) {
        const p = centre(env);
        const s = expectOk(await env.conn.call('vm_click', { ...p, coordinate_space: 'screen' }), `vm_click at ${p.x},${p.y}`, 'click() must move the pointer to (x, y) in screen pixels and click');
        check(s.screen_x === p.x && s.screen_y === p.y, `vm_click reports ${String(s.screen_x)},${String(s.screen_y)} for ${p.x},${p.y}`, 'screen space coordinates must reach the adapter unchanged');
        const pointer = await env.target.effects?.pointer?.();
        if (pointer) check(pointer.x === p.x && pointer.y === p.y, `after clicking ${p.x},${p.y} the pointer is at ${pointer.x},${pointer.y}`, 'click at the coordinates given (screen pixels), not scaled or offset');
      },
    },
    {
      name: 'a point off the screen answers INVALID_REQUEST',
      async run(env, t) {
        const p = offScreen(env);
        if (!p) { t.skip(NO_SCREEN); return; }
        expectError(await env.conn.call('vm_click', { ...p, coordinate_space: 'screen' }), 'INVALID_REQUEST', `vm_click at ${p.x},${p.y} (off screen)`, 'report the real screen size from screenshot()/screenSize() so the router rejects off-screen points');
      },
    },
  ],
  type: [
    {
      name: 'types text that reaches the target',
      async run(env, t) {
        const text = 'vmhub conformance 123';
        const s = expectOk(await env.conn.call('vm_type', { text }), 'vm_type', 'type() must type the text into the focused window');
        check(s.typed === text.length, `vm_type reports typed ${String(s.typed)} for ${text.length} characters`, 'the router computes typed; do not alter the input');
        const typed = await env.target.effects?.typedText?.();
        if (typed === undefined) { t.diagnostic('effect not verified: give effects.typedText() in the target'); return; }
        check(typed.includes(text), `typed text in the target is ${JSON.stringify(typed.slice(-80))}, missing ${JSON.stringify(text)}`, 'type() must deliver every character, in order, to the focused window');
      },
    },
  ],
  key: [
    {
      name: 'presses a valid chord',
      async run(env) {
        expectOk(await env.conn.call('vm_key', { keys: 'shift' }), 'vm_key {keys: "shift"}', 'key() must accept keysym names joined by "+" (e.g. "ctrl+shift+t")');
        const keys = await env.target.effects?.keys?.();
        if (keys) check(keys.some((k) => k.toLowerCase().includes('shift')), `pressed keys seen by the target: ${keys.join(', ')}; no shift`, 'send the chord to the target');
      },
    },
    {
      name: 'an unknown keysym answers INVALID_REQUEST',
      async run(env) {
        expectError(await env.conn.call('vm_key', { keys: 'ctrl+NoSuchKeyVmhub' }), 'INVALID_REQUEST', 'vm_key {keys: "ctrl+NoSuchKeyVmhub"}', 'validate key names before sending and throw new VmhubError("INVALID_REQUEST", ...) naming the unknown key');
      },
    },
  ],
  paste: [
    {
      name: 'pastes Unicode text and restores the clipboard',
      async run(env, t) {
        const text = 'vmhub paste ✓ ünïcödé 日本';
        const clipboardBefore = await env.target.effects?.clipboard?.();
        const s = expectOk(await env.conn.call('vm_paste', { text }), 'vm_paste', 'paste() must put the text on the clipboard, paste it, and restore the previous clipboard');
        check(s.pasted === [...text].length, `vm_paste reports pasted ${String(s.pasted)}`, 'the router computes pasted; do not alter the input');
        const typed = await env.target.effects?.typedText?.();
        if (typed !== undefined) check(typed.includes(text), `after vm_paste the target shows ${JSON.stringify(typed.slice(-80))}`, 'paste must deliver the exact Unicode text (clipboard + ctrl+v, or equivalent)');
        const clipboardAfter = await env.target.effects?.clipboard?.();
        if (clipboardBefore !== undefined) check(clipboardAfter === clipboardBefore, `clipboard was ${JSON.stringify(clipboardBefore)} before vm_paste and is ${JSON.stringify(clipboardAfter)} after`, 'restore the previous clipboard content after pasting');
        if (typed === undefined && clipboardBefore === undefined) t.diagnostic('effect not verified: give effects.typedText() and effects.clipboard() in the target');
      },
    },
  ],
  drag: [
    {
      name: 'drags between two points on the screen',
      async run(env) {
        const from = centre(env);
        const to = { x: from.x + 20, y: from.y + 20 };
        expectOk(await env.conn.call('vm_drag', { from, to, coordinate_space: 'screen' }), 'vm_drag', 'drag() must press at from, move to to, and release');
        const pointer = await env.target.effects?.pointer?.();
        if (pointer) check(pointer.x === to.x && pointer.y === to.y, `after a drag to ${to.x},${to.y} the pointer is at ${pointer.x},${pointer.y}`, 'end the drag at "to"');
      },
    },
    {
      name: 'an off-screen end point answers INVALID_REQUEST',
      async run(env, t) {
        const to = offScreen(env);
        if (!to) { t.skip(NO_SCREEN); return; }
        expectError(await env.conn.call('vm_drag', { from: centre(env), to, coordinate_space: 'screen' }), 'INVALID_REQUEST', 'vm_drag to an off-screen point', 'report the real screen size from screenshot()/screenSize()');
      },
    },
  ],
  scroll: [
    {
      name: 'scrolls at a point',
      async run(env) {
        const p = centre(env);
        expectOk(await env.conn.call('vm_scroll', { ...p, direction: 'down', amount: 2, coordinate_space: 'screen' }), 'vm_scroll', 'scroll() must move to (x, y) and scroll amount notches in direction');
        const scrolls = await env.target.effects?.scrolls?.();
        if (scrolls) {
          const last = scrolls.at(-1);
          check(last && last.direction === 'down' && last.amount === 2 && last.x === p.x && last.y === p.y, `the target saw ${JSON.stringify(last)} for a scroll down 2 at ${p.x},${p.y}`, 'scroll where and as much as asked');
        }
      },
    },
  ],
};
