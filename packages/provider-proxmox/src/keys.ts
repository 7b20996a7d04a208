/**
 * The one encoding quirk of the `sshkeys` config key: Proxmox wants it percent-encoded (format
 * `urlencoded`), with %20 for spaces, before the usual form encoding. The key pairs themselves are
 * core's (generateLeaseKeyPair).
 */
export { generateLeaseKeyPair, type LeaseKeyPair } from '@vmhub/core';

/**
 * Value for the `sshkeys` parameter: percent-encoded so it only holds `[-%a-zA-Z0-9_.!~*'()]`
 * (spaces as %20, never `+`). The form encoder then encodes it once more, as Proxmox expects.
 */
export function encodeSshKeys(keys: string[]): string {
  return encodeURIComponent(keys.map((k) => k.trim()).join('\n'));
}
