/**
 * vm_key: each chord through Shortcut ("ctrl+shift+t"; the early Shortcut-Tool takes a list of
 * key names where its schema says so).
 */
import type { AdapterContext } from '@vmhub/core';
import { parseChords } from './keys.ts';
import type { WinRuntime } from './runtime.ts';
import { paramTypes } from './tool-map.ts';

export async function shortcut(rt: WinRuntime, ctx: AdapterContext, keys: string[]): Promise<void> {
  const tool = await rt.mcp.need(ctx, 'shortcut', 'vm_key');
  const asList = paramTypes(tool, 'shortcut').includes('array') && !paramTypes(tool, 'shortcut').includes('string');
  await rt.mcp.call(ctx, tool, { shortcut: asList ? keys : keys.join('+') });
}

export async function key(rt: WinRuntime, ctx: AdapterContext, input: { keys: string }): Promise<void> {
  const chords = parseChords(input.keys);
  for (const chord of chords) await shortcut(rt, ctx, chord);
}
