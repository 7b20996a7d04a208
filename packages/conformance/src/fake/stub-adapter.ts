/** An adapter that declares nothing: every VM-bound tool answers CAPABILITY_UNAVAILABLE through the router. */
import { defineAdapter } from '@vmhub/core';
import { VERSION } from './fake-provider.ts';

export const stubAdapter = defineAdapter({
  id: 'stub',
  version: VERSION,
  contractVersion: 2,
  capabilities: [],
  create: () => ({ open: () => ({}) }),
});

export function createStubAdapter() {
  return stubAdapter.create();
}
