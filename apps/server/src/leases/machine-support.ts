/**
 * What a template's provider does to the machine itself (MACHINE_CAPABILITIES): restart it in
 * place (Provider.restartSupport + restart), say what it uses (Provider.stats), show its console
 * log (Provider.logs). One answer for vm_capabilities (the capability, or why not) and for the
 * calls, which check it first: `true`, or the reason they cannot.
 */
import { VmhubError, type MachineCapability, type Provider, type TemplateConfig } from '@vmhub/core';

/** Restarts: `{graceful}` (the guest is asked first), or why the template's machines cannot restart. */
export function restartSupport(provider: Provider | undefined, template: TemplateConfig): { graceful: boolean } | string {
  if (!provider) return `provider "${template.provider}" is not loaded`;
  if (!provider.restartSupport) return `provider "${provider.id}" cannot restart its machines in place`;
  if (typeof provider.restart !== 'function') return `provider "${provider.id}" declares restarts but lacks restart()`;
  try {
    return provider.restartSupport(template);
  } catch (err) {
    return `provider "${provider.id}" could not say: ${(err as Error).message}`;
  }
}

export function machineSupport(provider: Provider | undefined, template: TemplateConfig, what: MachineCapability): true | string {
  if (what === 'restart') {
    const r = restartSupport(provider, template);
    return typeof r === 'string' ? r : true;
  }
  if (!provider) return `provider "${template.provider}" is not loaded`;
  if (what === 'stats') return typeof provider.stats === 'function' ? true : `provider "${provider.id}" does not measure what its machines use`;
  return typeof provider.logs === 'function' ? true : `provider "${provider.id}" keeps no console log of its machines`;
}

const VERB: Record<MachineCapability, string> = { restart: 'be restarted', stats: 'report what they use', logs: 'show a console log' };

/** CAPABILITY_UNAVAILABLE naming the tool, the template and the reason, unless the template's machines can `what`. */
export function assertMachine(provider: Provider | undefined, template: TemplateConfig, what: MachineCapability, tool: string): void {
  const support = machineSupport(provider, template, what);
  if (support === true) return;
  throw new VmhubError('CAPABILITY_UNAVAILABLE', `${tool}: machines of template ${template.id} cannot ${VERB[what]}: ${support}`, {
    hint: `vm_capabilities lists "${what}" where it works; pick a template whose provider has it (docs/agent-tools.md).`,
    details: { capability: what, template: template.id },
  });
}
