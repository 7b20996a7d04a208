/**
 * Toolsets: the operator picks which groups of tools the server lists (config `toolsets`, env
 * VMHUB_TOOLSETS). Agents pay tokens for every byte of tools/list, so the default sets stay
 * within 20 KB and every tool together within 28 KB (apps/server/test/tools-list.test.ts).
 * A tool outside the chosen sets is not listed and answers POLICY_DENIED naming its set.
 * `lease` is always offered: without it no other tool can be used.
 */
import { VmhubError } from './errors.ts';
import type { ToolName } from './tools.ts';

export const TOOLSETS = ['lease', 'screen', 'input', 'batch', 'files', 'exec', 'apps', 'admin'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** The one table: every tool's set (docs/agent-tools.md and docs/configuration.md list it). */
export const TOOLSET_OF: Record<ToolName, Toolset> = {
  vm_list_templates: 'lease', vm_capabilities: 'lease', vm_lease_create: 'lease', vm_lease_status: 'lease',
  vm_lease_renew: 'lease', vm_lease_release: 'lease', vm_lease_list: 'lease', vm_snapshot: 'lease', vm_lease_restart: 'lease',
  vm_screenshot: 'screen', vm_wait: 'screen', vm_find_text: 'screen',
  vm_click: 'input', vm_type: 'input', vm_key: 'input', vm_paste: 'input', vm_drag: 'input', vm_scroll: 'input',
  // 4.3 KB: per-action step schemas. Fewer round trips, nothing the input tools cannot do one by one.
  vm_batch: 'batch',
  // vm_get_clipboard: data out of the guest, like vm_get_file (and gated like the guest tools).
  vm_put_file: 'files', vm_get_file: 'files', vm_clone_repo: 'files', vm_get_clipboard: 'files',
  vm_exec: 'exec',
  vm_launch: 'apps', vm_list_windows: 'apps', vm_focus: 'apps', vm_close: 'apps', vm_inspect: 'apps',
  // vm_logs: diagnosis, like vm_health (the default sets have no room left: their 20 KB budget).
  vm_health: 'admin', vm_dispatch: 'admin', vm_logs: 'admin',
};

/** Listed unless the operator says otherwise: what an agent needs to drive a machine. */
export const DEFAULT_TOOLSETS: readonly Toolset[] = ['lease', 'screen', 'input', 'files', 'exec'];

/**
 * The sets `names` select: set names, `default` (DEFAULT_TOOLSETS) and `all`; `lease` always.
 * An unknown name is a typed INVALID_REQUEST naming the valid ones.
 */
export function resolveToolsets(names: readonly string[], what = '[vmhub] toolsets'): Toolset[] {
  const out = new Set<Toolset>(['lease']);
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (name === 'all') TOOLSETS.forEach((s) => out.add(s));
    else if (name === 'default') DEFAULT_TOOLSETS.forEach((s) => out.add(s));
    else if ((TOOLSETS as readonly string[]).includes(name)) out.add(name as Toolset);
    else throw new VmhubError('INVALID_REQUEST', `${what}: unknown toolset "${raw}" (valid: ${TOOLSETS.join(', ')}, default, all)`, { source: 'config', hint: 'Name sets from docs/configuration.md ("toolsets"), e.g. VMHUB_TOOLSETS=default,apps or all.' });
  }
  return TOOLSETS.filter((s) => out.has(s));
}

/** Why `tool` is refused when `offered` (the resolved sets) do not hold its set. */
export function toolsetDenied(tool: ToolName, offered: readonly Toolset[]): VmhubError {
  const set = TOOLSET_OF[tool];
  return new VmhubError('POLICY_DENIED', `${tool} is in toolset "${set}", which this server does not offer (it offers: ${offered.join(', ')})`, {
    retryable: false,
    hint: `The operator can add it: VMHUB_TOOLSETS=${[...offered, set].join(',')} or config "toolsets": [..., "${set}"].`,
    details: { toolset: set, offered },
  });
}
