/**
 * Type: `wtype -s SETTLE -d DELAY -- TEXT`, the text one argv element (never a shell word), in
 * a UTF-8 locale. wtype uploads a keymap holding exactly the text's characters, so any Unicode
 * character types without remapping races; "\n" is Return and "\t" Tab. Each run is a new
 * virtual keyboard whose first key would be lost before clients bind it, hence the settle (-s).
 * Long text goes out as one run per type_chunk_chars characters, in order; a cancelled call kills
 * the running piece (ctx.signal) and starts no further one.
 */
import type { AdapterContext } from '@vmhub/core';
import type { HyprRuntime } from './runtime.ts';

export function chunks(text: string, size: number): string[] {
  const points = [...text.replace(/\r\n?/g, '\n')];
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

export async function type(rt: HyprRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const guest = await rt.guest(ctx);
  const { input_settle_ms: settle, type_delay_ms: delay, type_chunk_chars: size } = rt.options;
  for (const piece of chunks(input.text, size)) {
    const ms = [...piece].length * (delay + 10) + settle;
    await guest.run(['wtype', '-s', String(settle), '-d', String(delay), '--', piece], { label: 'vm_type', timeoutMs: Math.max(rt.options.command_timeout_ms, ms * 2 + 5000) });
  }
}
