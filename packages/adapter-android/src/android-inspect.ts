/**
 * Inspect: `uiautomator dump <scratch file>`, printed with cat and removed in the same command;
 * retried on uiautomator's known transient failures ("null root node returned by
 * UiTestAutomationBridge", "could not get idle state" while animating), then parsed into the
 * contract's element tree with bounds (uiautomator.ts).
 */
import { randomBytes } from 'node:crypto';
import type { AdapterContext, ElementNode } from '@vmhub/core';
import { androidError, clip, missingTool, throwIfCancelled } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';
import { extractXml, parseUiDump } from './uiautomator.ts';

const DUMP_SCRIPT = 'uiautomator dump "$1" 2>&1; cat "$1" 2>/dev/null; rm -f "$1"; exit 0';
const TRANSIENT = /null root node returned by UiTestAutomationBridge|could not get idle state/i;

export async function inspect(rt: AndroidRuntime, ctx: AdapterContext, input: { max_depth: number }): Promise<{ source: string; tree: ElementNode }> {
  const device = await rt.device(ctx);
  let last = '';
  for (let attempt = 0; attempt < rt.options.inspect_attempts; attempt++) {
    if (attempt > 0) {
      await new Promise((r) => setTimeout(r, rt.options.inspect_retry_ms));
      throwIfCancelled(ctx.signal, 'inspect');
    }
    const file = `${rt.options.scratch_dir.replace(/\/+$/, '')}/vmhub-ui-${randomBytes(6).toString('hex')}.xml`;
    const res = await device.sh(DUMP_SCRIPT, [file], { label: 'uiautomator dump', maxOutputBytes: 32 * 1024 * 1024, timeoutMs: Math.max(rt.options.command_timeout_ms, 30_000) });
    const out = res.stdout.toString('utf8');
    const xml = extractXml(out);
    if (xml) return { source: 'uiautomator', tree: parseUiDump(xml, input.max_depth) };
    last = out.trim();
    if (/uiautomator: (?:inaccessible or )?not found/.test(out)) throw missingTool('uiautomator');
    if (!TRANSIENT.test(out)) break;
  }
  throw androidError('INTERNAL', `uiautomator dump gave no UI tree after ${rt.options.inspect_attempts} attempt(s): ${clip(last) || 'no output'}`, {
    hint: 'The screen may be animating or locked: wait, take a screenshot, then retry inspect.',
  });
}
