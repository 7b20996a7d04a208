/**
 * Type: every character as X keysyms over RFB — Latin-1 as its code point, other Unicode as
 * 0x01000000 + code point, newline as Return, tab as Tab; characters that need Shift on a US
 * keyboard are sent with Shift_L held (shift_style chooses their own keysym or the base key's).
 * With vnc: "none", System Events `keystroke` through osascript. Control characters are refused
 * before anything is sent.
 */
import type { AdapterContext } from '@vmhub/core';
import { macError, throwIfCancelled } from './errors.ts';
import { osaType } from './in-guest.ts';
import { charKeysym, SHIFT_L, shiftOf, untypeable } from './keys.ts';
import type { MacosRuntime } from './runtime.ts';
import { checkSignal, holding, sleep, withRfb } from './vnc-input.ts';

export async function type(rt: MacosRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const bad = untypeable(input.text);
  if (bad.length > 0) {
    throw macError('INVALID_REQUEST', `text contains control characters that cannot be typed (${bad.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(', ')}): send keys with vm_key instead`, { details: { characters: bad } });
  }
  throwIfCancelled(ctx.signal, 'type');
  if (!rt.viaVnc) return osaType(rt, ctx, input.text);
  const text = input.text.replace(/\r\n?/g, '\n');
  const base = rt.options.shift_style === 'base';
  await withRfb(rt, async (rfb) => {
    for (const ch of text) {
      checkSignal(ctx, 'type');
      const s = shiftOf(ch);
      if (s.shift) await holding(rfb, [SHIFT_L], () => rfb.keyPress(charKeysym(base ? s.base : ch)));
      else await rfb.keyPress(charKeysym(ch));
      await sleep(rt.options.key_delay_ms);
    }
  });
}
