/**
 * list(): the claims carrying this instance's identity prefix — the devices its leases hold.
 * The reaper's orphan sweep destroys (resets and releases) the ones whose lease is gone.
 */
import type { OwnedMachine } from '@vmhub/core';
import type { Claims } from './claims.ts';
import { machineOf } from './adb-pool-create.ts';

export function listClaimed(claims: Claims, identityPrefix: string): OwnedMachine[] {
  return claims.all()
    .filter((c) => c.identity.startsWith(identityPrefix))
    .map((c) => ({ ...machineOf(c), created_at: c.claimed_at }));
}
