/**
 * vm_batch: up to 20 steps, all checked before the first runs (schema, deliverable text,
 * coordinates, the adapter's capability, OCR and marks where a step needs them), then run in
 * order through the very handlers the single tools use, stopping at the first failure.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { Type } from '@sinclair/typebox';
import { asVmhubError, VmhubError } from '../errors.ts';
import { TOOLS, type BatchAction, type ToolInput, type ToolName } from '../tools.ts';
import { assertValid } from '../validate.ts';
import { assertDeliverable } from './deliverable.ts';
import { toHandler, toPublished, withoutNulls } from './forms.ts';
import type { RouterSettings, ToolHost } from './types.ts';
import { DEFAULT_WAIT_SECONDS, sleep } from './wait.ts';
import type { BoundLease, VmToolOutput } from './vm-tools.ts';

export const MAX_BATCH_SECONDS = 300;
/** Time a step other than a wait may take within the batch's deadline. */
const STEP_ALLOWANCE_SECONDS = 15;

const WaitStep = Type.Object({ lease_id: Type.String(), seconds: Type.Number({ minimum: 0, maximum: 30 }) }, { additionalProperties: false });

const TOOL_OF: Record<Exclude<BatchAction, 'wait'>, ToolName> = {
  click: 'vm_click', type: 'vm_type', key: 'vm_key', paste: 'vm_paste', drag: 'vm_drag', scroll: 'vm_scroll', wait_for: 'vm_wait',
};

type Handler = (b: BoundLease, input: never, env: { host: ToolHost }) => Promise<VmToolOutput>;
/** Checks a step's validated input the way its tool would before acting (coordinates, targets, OCR). */
export type Precheck = (b: BoundLease, input: Record<string, unknown>, host: ToolHost) => Promise<void> | void;

interface Step { action: BatchAction; tool?: ToolName; args: Record<string, unknown> }

export interface StepResult { action: BatchAction; ok: boolean; result?: Record<string, unknown>; error?: { code: string; message: string } }

/** The seconds vm_batch's deadline allows: its waits, plus an allowance per other step, capped. */
export function batchSeconds(input: Record<string, unknown>, settings: RouterSettings): number {
  const actions = input.actions as { action: string; seconds?: number; timeout_seconds?: number }[];
  const steps = actions.length + (input.screenshot ? 1 : 0);
  return Math.min(MAX_BATCH_SECONDS, Math.max(settings.callTimeoutSeconds, waitSeconds(actions) + steps * STEP_ALLOWANCE_SECONDS));
}

function waitSeconds(actions: readonly { action: string; seconds?: number; timeout_seconds?: number }[]): number {
  return actions.reduce((sum, a) => sum + (a.action === 'wait' ? a.seconds ?? 0 : a.action === 'wait_for' ? a.timeout_seconds ?? DEFAULT_WAIT_SECONDS : 0), 0);
}

export async function runBatch(b: BoundLease, input: ToolInput<'vm_batch'>, host: ToolHost, handlers: Partial<Record<ToolName, Handler>>, prechecks: Partial<Record<ToolName, Precheck>>): Promise<VmToolOutput> {
  const steps = await validate(b, input, host, prechecks);
  const results: StepResult[] = [];
  const env = { host };
  for (const step of steps) {
    try {
      if (step.action === 'wait') {
        await sleep(Math.round((step.args.seconds as number) * 1000), b.context.signal);
        results.push({ action: step.action, ok: true, result: { seconds: step.args.seconds as number } });
        continue;
      }
      const out = await handlers[step.tool!]!(b, step.args as never, env);
      if (step.action === 'wait_for' && out.structured.satisfied === false) {
        const what = step.args.for === 'text' ? `text "${step.args.text as string}"` : `"${step.args.for as string}"`;
        results.push({ action: step.action, ok: false, result: out.structured, error: { code: 'TIMEOUT', message: `wait_for ${what} was not satisfied within ${(step.args.timeout_seconds as number | undefined) ?? DEFAULT_WAIT_SECONDS} s; the later steps did not run` } });
        break;
      }
      results.push({ action: step.action, ok: true, result: out.structured });
    } catch (err) {
      if (b.context.signal.aborted) throw err;
      const e = asVmhubError(err);
      results.push({ action: step.action, ok: false, error: { code: e.code, message: e.message } });
      break;
    }
  }
  const structured: Record<string, unknown> = { completed: results.filter((r) => r.ok).length, results };
  let content: CallToolResult['content'] = [];
  if (input.screenshot) {
    try {
      const shot = await handlers.vm_screenshot!(b, { lease_id: b.lease_id } as never, env);
      structured.screenshot = shot.structured;
      content = shot.content ?? [];
    } catch (err) {
      if (b.context.signal.aborted) throw err;
      const e = asVmhubError(err);
      structured.screenshot = { error: { code: e.code, message: e.message } };
    }
  }
  return { structured, content };
}

async function validate(b: BoundLease, input: ToolInput<'vm_batch'>, host: ToolHost, prechecks: Partial<Record<ToolName, Precheck>>): Promise<Step[]> {
  const steps: Step[] = [];
  const provided = b.adapter?.capabilities ?? [];
  for (const [i, raw] of input.actions.entries()) {
    // Strict-mode clients send every field of the step, null where not given (tools.ts stepOf).
    const { action, ...rest } = withoutNulls(raw as Record<string, unknown>) as { action: BatchAction } & Record<string, unknown>;
    const where = `actions[${i}] (${action})`;
    if (action === 'wait') {
      const args = { ...rest, lease_id: b.lease_id };
      assertValid(WaitStep, args, where);
      steps.push({ action, args });
      continue;
    }
    const tool = TOOL_OF[action];
    const def = TOOLS[tool];
    const args = toHandler(tool, assertValid(def.input, toPublished(tool, { ...rest, lease_id: b.lease_id }), where));
    if (def.capability && !provided.includes(def.capability)) {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `${where}: adapter "${b.adapter?.id}" (template ${b.template.id}) does not provide "${def.capability}", which ${tool} needs; nothing was run`, { details: { step: i, capability: def.capability } });
    }
    try {
      assertDeliverable(tool, args);
      await prechecks[tool]?.(b, args, host);
    } catch (err) {
      const e = asVmhubError(err);
      throw new VmhubError(e.code, `${where}: ${e.message}; nothing was run`, { hint: e.hint, details: { step: i, ...e.details }, cause: err });
    }
    steps.push({ action, tool, args });
  }
  if (input.screenshot && !provided.includes('screenshot')) {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `screenshot: adapter "${b.adapter?.id}" does not provide "screenshot"; drop screenshot: true; nothing was run`);
  }
  const waits = waitSeconds(input.actions as never);
  if (waits > MAX_BATCH_SECONDS - 10) {
    throw new VmhubError('INVALID_REQUEST', `actions: the waits add up to ${waits} s, over the ${MAX_BATCH_SECONDS - 10} s a batch may wait; split it into several batches; nothing was run`);
  }
  return steps;
}
