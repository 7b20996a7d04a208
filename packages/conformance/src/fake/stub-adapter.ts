/** An adapter that declares nothing: every VM-bound tool answers CAPABILITY_UNAVAILABLE through the router. */
import { CONTRACT_VERSION, defineAdapter } from '@vmhub/core';
import { VERSION } from './fake-provider.ts';

export const stubAdapter = defineAdapter({
  id: 'stub',
  version: VERSION,
  contractVersion: CONTRACT_VERSION,
  capabilities: [],
  create: () => ({}),
});

export function createStubAdapter() {
  return stubAdapter.create();
}
