/**
 * The take-over gate: which tools wait while a person holds a lease (the live view's take-over).
 *
 * - Input tools (HUMAN_GATED_TOOLS) always answer HUMAN_CONTROL: the agent and the person never
 *   type into the same screen at once.
 * - Guest tools (HUMAN_GATED_GUEST_TOOLS: commands, file writes, clones) answer HUMAN_CONTROL
 *   too, unless the person allowed them when taking over (`allow_commands_and_files`): a command
 *   reaches the display as easily as vm_type does (`DISPLAY=:0 xdotool type …`), and a write or a
 *   clone can replace the file the person has open. vm_get_clipboard too: what the person copied
 *   is their data (the live view's own copy-out needs control as well).
 * - Everything else keeps working: watching (vm_screenshot, vm_wait, vm_find_text, vm_inspect,
 *   vm_list_windows), reading (vm_get_file, and vm_exec {job}, which reads a detached command's
 *   state and starts nothing), the lease tools.
 *
 * The check runs after the lease is bound and before the handler, so a refused call did nothing.
 * What resets the whole machine under the person (vm_lease_restart, vm_snapshot restore) is
 * refused with the same code while they hold it, whatever they allowed (assertNoHumanHold).
 */
import { VmhubError } from '../errors.ts';
import type { ToolName } from '../tools.ts';
import type { HumanControl } from './types.ts';

export const HUMAN_GATED_TOOLS: ReadonlySet<ToolName> = new Set<ToolName>(['vm_click', 'vm_type', 'vm_key', 'vm_paste', 'vm_drag', 'vm_scroll', 'vm_batch', 'vm_launch', 'vm_focus', 'vm_close', 'vm_dispatch']);

export const HUMAN_GATED_GUEST_TOOLS: ReadonlySet<ToolName> = new Set<ToolName>(['vm_exec', 'vm_put_file', 'vm_clone_repo', 'vm_get_clipboard']);

/** Which gate a call passes: 'input', 'guest', or none. */
export function humanGate(name: ToolName, input: Record<string, unknown>): 'input' | 'guest' | undefined {
  if (HUMAN_GATED_TOOLS.has(name)) return 'input';
  if (name === 'vm_exec' && input.job !== undefined && input.command === undefined && input.shell === undefined) return undefined;
  if (HUMAN_GATED_GUEST_TOOLS.has(name)) return 'guest';
  return undefined;
}

/** Throws HUMAN_CONTROL when the person's hold refuses this call; `held` undefined: the agent drives. */
export function assertAgentMayAct(name: ToolName, input: Record<string, unknown>, leaseId: string, held: HumanControl | undefined): void {
  const gate = humanGate(name, input);
  if (!gate || !held?.human) return;
  if (gate === 'guest' && held.allow_commands_and_files === true) return;
  const details = { since: held.since, allow_commands_and_files: held.allow_commands_and_files === true };
  if (gate === 'input') throw new VmhubError('HUMAN_CONTROL', `${name}: a person took over lease ${leaseId} at ${held.since} (live view); input tools wait for the hand-back`, { details });
  throw new VmhubError('HUMAN_CONTROL', `${name}: a person took over lease ${leaseId} at ${held.since} (live view) and did not allow commands and files while they hold it; ${name} waits for the hand-back`, {
    details,
    hint: 'A person has taken over this machine. Commands and file writes wait for the hand-back unless they allow them in the dashboard. Call vm_screenshot or vm_get_file to watch (they keep working) and retry later.',
  });
}

/**
 * Throws HUMAN_CONTROL when a person holds the lease: for what resets the machine they are using
 * (a reboot, a snapshot restore), which no `allow_commands_and_files` covers. `held` undefined: go on.
 */
export function assertNoHumanHold(what: string, leaseId: string, held: HumanControl | undefined): void {
  if (!held?.human) return;
  throw new VmhubError('HUMAN_CONTROL', `${what}: a person took over lease ${leaseId} at ${held.since} (live view); resetting the machine under them waits for the hand-back; nothing was done`, {
    details: { since: held.since, allow_commands_and_files: held.allow_commands_and_files === true },
  });
}
