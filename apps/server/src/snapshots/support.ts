/**
 * Whether a template's machines can be snapshot, restored and forked (Provider.snapshotSupport),
 * as vm_capabilities shows it and as every snapshot call checks it first: `{memory}`, or the
 * reason they cannot. A provider that says yes but lacks a method of the contract cannot either.
 */
import { VmhubError, type Provider, type TemplateConfig } from '@vmhub/core';

export function snapshotSupport(provider: Provider | undefined, template: TemplateConfig): { memory: boolean } | string {
  if (!provider) return `provider "${template.provider}" is not loaded`;
  if (!provider.snapshotSupport) return `provider "${provider.id}" has no snapshots`;
  const lacking = (['snapshot', 'restore', 'deleteSnapshot'] as const).filter((m) => typeof provider[m] !== 'function');
  if (lacking.length > 0) return `provider "${provider.id}" declares snapshots but lacks ${lacking.join(', ')}`;
  try {
    return provider.snapshotSupport(template);
  } catch (err) {
    return `provider "${provider.id}" could not say: ${(err as Error).message}`;
  }
}

/** The support, or CAPABILITY_UNAVAILABLE naming the template and the reason; `what` starts the message. */
export function assertSnapshots(provider: Provider | undefined, template: TemplateConfig, what: string): { memory: boolean } {
  const support = snapshotSupport(provider, template);
  if (typeof support === 'string') {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `${what}: machines of template ${template.id} cannot be snapshot: ${support}`, { hint: 'vm_capabilities shows "snapshot" where it works; pick a template whose provider has it (docs/agent-tools.md, Snapshots).', details: { capability: 'snapshot', template: template.id } });
  }
  return support;
}
