/**
 * The per-lease runtime: what every capability function gets as `rt`. The kit makes one when core
 * opens the lease's session and drops it when the lease ends, so what the adapter learns about one
 * machine (here: the screen size) lives here, never in module scope.
 */
import type { AdapterContext } from '@vmhub/core';
import { Facts, openGuest, type Guest } from '@vmhub/core/adapter-kit';
import { errors } from './errors.ts';
import type { ExampleOptions } from './options.ts';

export interface ExampleRuntime {
  readonly options: ExampleOptions;
  /** Learned once per lease (a failed lookup is retried); each screenshot refreshes the size. */
  readonly facts: Facts<{ screen: { width: number; height: number } }>;
  /**
   * This call's way into the guest: `run(argv)` passes the call's signal (a cancelled call is
   * killed in the guest), bounds the command, and turns a failure into a VmhubError saying what
   * to fix (a missing tool: add it to the golden image).
   */
  guest(ctx: AdapterContext): Promise<Guest>;
}

export function createRuntime(options: ExampleOptions): ExampleRuntime {
  return {
    options,
    facts: new Facts(),
    guest: (ctx) => openGuest(ctx, {
      errors,
      missingTool: (tool) => errors.error('CAPABILITY_UNAVAILABLE', `${tool} is not installed in template ${ctx.template.id}: add it to the golden image`),
      scriptName: 'vmhub-example',
      env: { DISPLAY: options.display },
      timeoutMs: 10_000,
      maxOutputBytes: 1024 * 1024,
    }),
  };
}
