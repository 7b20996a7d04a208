/**
 * Type: the text goes to the session's kept virtual keyboard (vkeyboard.ts) as one `-t TEXT`
 * op, never through a shell. The helper's keymap holds exactly the keysyms typed (wtype's
 * rule), so any Unicode character types without remapping races; "\n" is Return and "\t" Tab;
 * other control characters have no key and are refused (INVALID_REQUEST). type_delay_ms passes
 * between keystrokes and the call returns once the compositor has delivered the last one.
 * Long text goes out as one guest command per type_chunk_chars characters, in order; a
 * cancelled call stops its running piece (the helper sees its client go between keystrokes)
 * and starts no further one.
 */
import type { AdapterContext } from '@vmhub/core';
import { hyprError } from './errors.ts';
import type { HyprRuntime } from './runtime.ts';
import { playKeys } from './vkeyboard.ts';

export function chunks(text: string, size: number): string[] {
  const points = [...text.replace(/\r\n?/g, '\n')];
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

/** Control characters with no key (all but backspace, tab, newline, return, escape and delete). */
const NO_KEY = /[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x80-\x9f]/u;

export async function type(rt: HyprRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const bad = NO_KEY.exec(input.text);
  if (bad) {
    const cp = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    throw hyprError('INVALID_REQUEST', `vm_type: character ${cp} at index ${bad.index} has no key; send keys with vm_key, or leave the character out`, { details: { character: cp, index: bad.index } });
  }
  const { type_delay_ms: delay, type_chunk_chars: size } = rt.options;
  for (const piece of chunks(input.text, size)) {
    await playKeys(rt, ctx, ['-d', String(delay), '-t', piece], 'vm_type', [...piece].length);
  }
}
