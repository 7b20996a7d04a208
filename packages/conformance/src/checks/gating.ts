/** Undeclared capabilities: the tool must answer CAPABILITY_UNAVAILABLE naming the adapter. */
import { TOOLS, type Capability, type ToolName } from '@vmhub/core';
import { check, expectError } from '../expect.ts';
import type { CapabilityCheck } from './env.ts';

/** Smallest valid arguments per capability's tool, so the call passes validation and reaches the gate. */
export const SAMPLE_ARGS: Record<Capability, Record<string, unknown>> = {
  screenshot: {},
  inspect: {},
  list_windows: {},
  focus: { window: 'w1' },
  close: { window: 'w1' },
  launch: { app: 'xterm' },
  click: { x: 1, y: 1, coordinate_space: 'screen' },
  type: { text: 'x' },
  key: { keys: 'Return' },
  key_hold: { keys: 'shift', action: 'down' },
  paste: { text: 'x' },
  get_clipboard: {},
  drag: { from: { x: 1, y: 1 }, to: { x: 2, y: 2 }, coordinate_space: 'screen' },
  scroll: { x: 1, y: 1, direction: 'down', coordinate_space: 'screen' },
  dispatch: { verb: 'x', args: {} },
  put_file: { path: 'vmhub-gate.txt', content: 'x' },
  get_file: { path: 'vmhub-gate.txt' },
  clone_repo: { url: 'https://example.invalid/r.git' },
  exec: { command: ['true'] },
};

export function toolFor(cap: Capability): ToolName {
  // key_hold has no tool of its own: vm_key {action: "down" | "up"} needs it.
  if (cap === 'key_hold') return 'vm_key';
  return (Object.keys(TOOLS) as ToolName[]).find((n) => (TOOLS[n] as { capability?: Capability }).capability === cap)!;
}

export function gatingCheck(cap: Capability): CapabilityCheck {
  const tool = toolFor(cap);
  return {
    name: `not declared: ${tool} answers CAPABILITY_UNAVAILABLE naming the adapter`,
    async run(env) {
      const e = expectError(await env.conn.call(tool, SAMPLE_ARGS[cap]), 'CAPABILITY_UNAVAILABLE', `${tool} on an adapter without "${cap}"`, `the router gates on plugin capabilities: do not declare "${cap}" unless ${tool} works`);
      check(e.message.includes(env.adapter.id), `the CAPABILITY_UNAVAILABLE message does not name the adapter "${env.adapter.id}": ${e.message}`, 'the router names the adapter; check your adapter id');
    },
  };
}
