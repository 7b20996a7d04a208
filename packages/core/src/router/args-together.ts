/**
 * Arguments a tool's schema cannot tie together (its subset has no oneOf or dependencies:
 * tools.ts), checked before anything runs: which one is missing, or which one does not belong.
 * vm_lease_create takes a template or a snapshot to fork (count only with a snapshot);
 * vm_snapshot's actions each name what they need.
 */
import { VmhubError } from '../errors.ts';
import type { ToolName } from '../tools.ts';

/** What each vm_snapshot action needs, and what only it takes. */
const SNAPSHOT_NEEDS: Record<string, readonly string[]> = { create: ['lease_id'], restore: ['lease_id', 'snapshot_id'], list: [], delete: ['snapshot_id'] };

function missing(tool: string, field: string, why: string): VmhubError {
  return new VmhubError('INVALID_REQUEST', `${tool} arguments: missing field "${field}" ${why}`, { hint: 'docs/agent-tools.md lists what each form takes.' });
}

function refused(tool: string, field: string, why: string): VmhubError {
  return new VmhubError('INVALID_REQUEST', `${tool} arguments: "${field}" ${why}; nothing was done`);
}

export function assertArgsTogether(tool: ToolName, input: Record<string, unknown>): void {
  if (tool === 'vm_lease_create') {
    const fork = input.snapshot_id !== undefined;
    if (!fork && input.template === undefined) throw missing(tool, 'template', '(or snapshot_id, to fork a snapshot)');
    if (fork && input.template !== undefined) throw refused(tool, 'template', 'is not given with snapshot_id (a fork has its snapshot\'s template)');
    if (!fork && input.count !== undefined) throw refused(tool, 'count', 'counts forks: it goes with snapshot_id');
    if (fork && input.workspace !== undefined) throw refused(tool, 'workspace', 'is not given with snapshot_id (a fork starts from its snapshot, with no workspace)');
  } else if (tool === 'vm_snapshot') {
    const action = input.action as string;
    for (const field of SNAPSHOT_NEEDS[action] ?? []) if (input[field] === undefined) throw missing(tool, field, `(action "${action}" needs it)`);
    if (input.name !== undefined && action !== 'create') throw refused(tool, 'name', `labels a new snapshot: it goes with action "create", not "${action}"`);
    if (input.snapshot_id !== undefined && (action === 'create' || action === 'list')) throw refused(tool, 'snapshot_id', `is not taken by action "${action}"`);
  }
}
