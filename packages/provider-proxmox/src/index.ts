/**
 * @vmhub/provider-proxmox — Proxmox VE as a vmhub provider: linked (or full) clones of golden
 * templates over the REST API with an API token, tagged `vmhub-<instance>-<lease>`, a per-lease
 * SSH key through cloud-init, readiness through the QEMU guest agent, and a new guest channel per
 * channel() call over SSH (ssh2) or the guest agent. Configuration is compatible with the vmhub
 * seed's env names.
 */
import { assertValid, defineProvider, readPackageVersion, type ProviderContext } from '@vmhub/core';
import { ProxmoxOptionsSchema, type ProxmoxOptions } from './options.ts';
import { providerMethods } from './proxmox-provider.ts';
import { SOURCE } from './pve-errors.ts';
import { Runtime } from './runtime.ts';
import { ProxmoxTemplateOptionsSchema } from './template-options.ts';

/** This package's version, from its package.json. */
export const VERSION = readPackageVersion(import.meta.url);

/** Factory without I/O: clients, keys and connections are made on first use. */
export function createProxmoxProvider(options: Partial<ProxmoxOptions>, context: ProviderContext, env: Record<string, string | undefined> = process.env): ReturnType<typeof providerMethods> {
  const full = assertValid<ProxmoxOptions>(ProxmoxOptionsSchema, structuredClone(options ?? {}), `[vmhub] [${SOURCE}] options`, SOURCE);
  return providerMethods(new Runtime(full, context, env));
}

const proxmoxProvider = defineProvider<ProxmoxOptions>({
  id: 'proxmox',
  version: VERSION,
  contractVersion: 2,
  options: ProxmoxOptionsSchema,
  templateOptions: ProxmoxTemplateOptionsSchema,
  create: (options, context) => createProxmoxProvider(options, context),
});

export default proxmoxProvider;
export { resolveProxmoxConfig, normalizeBaseUrl, normalizeFingerprint, nodeEnvName, type ResolvedEndpoint, type ResolvedProxmoxConfig } from './config.ts';
export { ProxmoxOptionsSchema, ProxmoxEndpointSchema, type ProxmoxOptions } from './options.ts';
export { ProxmoxTemplateOptionsSchema, identityTag, type ProxmoxTemplateOptions } from './template-options.ts';
export { quoteArg, quoteArgv, buildRemoteCommand } from './shell-quote.ts';
export { generateLeaseKeyPair, encodeSshKeys, type LeaseKeyPair } from './keys.ts';
export { pickAddress, isUsableIpv4 } from './address.ts';
export { requirements as privilegeRequirements, hasPrivilege, type PermissionMap, type Requirement } from './privileges.ts';
export { SshChannel, type SshTarget } from './ssh-channel.ts';
export { AgentChannel, type AgentTarget } from './agent-channel.ts';
