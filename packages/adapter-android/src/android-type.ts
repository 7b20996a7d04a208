/**
 * Type: the text as planned by text-plan.ts — printable ASCII through `input text`, newline and
 * tab as keys, the rest through the clipboard — in order. Consecutive `input` steps run in one
 * device command (positional arguments, never spliced), each clipboard run in its own.
 */
import type { AdapterContext } from '@vmhub/core';
import { setClipboard } from './clipboard.ts';
import { throwIfCancelled } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';
import { planText, type TextStep } from './text-plan.ts';

/** Bytes of arguments per device command, well inside adb's 64 KiB command line. */
const BATCH_BYTES = 24 * 1024;

type InputStep = Exclude<TextStep, { kind: 'clipboard' }>;

function batchScript(steps: InputStep[]): { script: string; args: string[] } {
  const args: string[] = [];
  const lines = steps.map((s) => {
    args.push(s.kind === 'text' ? s.arg : s.code);
    return `input ${s.kind === 'text' ? 'text' : 'keyevent'} "\${${args.length}}"`;
  });
  return { script: lines.join(' && '), args };
}

export async function type(rt: AndroidRuntime, ctx: AdapterContext, input: { text: string }): Promise<void> {
  const steps = planText(input.text, rt.options.text_chunk_chars);
  const device = await rt.device(ctx);
  let batch: InputStep[] = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (!batch.length) return;
    const { script, args } = batchScript(batch);
    batch = [];
    bytes = 0;
    await device.sh(script, args, { label: 'input text' });
  };
  for (const step of steps) {
    if (step.kind === 'clipboard') {
      await flush();
      throwIfCancelled(ctx.signal, 'type');
      await setClipboard(rt, ctx, step.text, true);
      continue;
    }
    const size = Buffer.byteLength(step.kind === 'text' ? step.arg : step.code) + 24;
    if (bytes + size > BATCH_BYTES) await flush();
    batch.push(step);
    bytes += size;
  }
  await flush();
}
