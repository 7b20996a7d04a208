/**
 * The CAPABILITY_UNAVAILABLE of a template that cannot be leased now. Its hint says why in the
 * agent's terms: the code's default ("This VM cannot do that: call vm_capabilities …") is about a
 * leased VM lacking a tool, and was wrong here. A provider whose backend is down (the Docker
 * engine, a Proxmox node) is named with how the operator starts it, and the error is retryable;
 * any other reason (a golden not built) says what the operator must do.
 */
import { VmhubError, type Provider, type TemplateConfig } from '@vmhub/core';
import { providerHealth, tidyReason } from '../catalog.ts';
import { splitFix } from '../doctor/checks.ts';

export async function templateUnavailable(template: TemplateConfig, provider: Provider, availability: { availability: string; reason?: string | undefined }): Promise<VmhubError> {
  const reason = tidyReason(availability.reason ?? 'no reason given');
  const message = `template ${template.id} is ${availability.availability}: ${reason}`;
  const status = await providerHealth(provider);
  if (!status.ok && !status.not_configured) {
    const { detail, fix } = splitFix(status.reason ?? reason);
    const plain = (text: string) => text.replace(/\[vmhub\](?: \[[^\]\s]+\])? ?/g, '');
    return new VmhubError('CAPABILITY_UNAVAILABLE', message, {
      retryable: true,
      details: { template: template.id, provider: template.provider, provider_down: true },
      hint: `The "${template.provider}" provider of this vmhub host is down (${plain(detail)}): ask the operator to ${fix ? plain(fix) : 'start it'}; vm_health shows when it is back, then retry. Or lease a template of another provider (vm_list_templates).`,
    });
  }
  const { fix } = splitFix(reason);
  return new VmhubError('CAPABILITY_UNAVAILABLE', message, {
    details: { template: template.id, provider: template.provider },
    hint: `Template ${template.id} cannot be leased on this host now: ask the operator to ${fix ? fix.replace(/\[vmhub\](?: \[[^\]\s]+\])? ?/g, '') : 'fix it (vmhub-server doctor says how)'}, or lease another template (vm_list_templates).`,
  });
}
