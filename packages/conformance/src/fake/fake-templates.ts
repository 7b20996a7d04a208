/** Templates served by the fake plugins, for tests and the server's default catalog in tests. */
import type { TemplateConfig } from '@vmhub/core';

/**
 * The fake desktop template: fake provider + fake adapter. Provider options understood:
 * `ready_delay_ms` (default 100), `fail_at: 'create' | 'ready'`, `unavailable_reason`,
 * `snapshots` (false: none), `snapshot_memory` (snapshots claim memory).
 */
export function fakeTemplate(overrides: Partial<TemplateConfig> = {}): TemplateConfig {
  return {
    id: 'fake-desktop', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden',
    description: 'In-process fake desktop (tests only)',
    ...overrides,
  };
}

/** A template whose adapter (`stub`) declares no capability: every VM tool is CAPABILITY_UNAVAILABLE. */
export function stubTemplate(overrides: Partial<TemplateConfig> = {}): TemplateConfig {
  return fakeTemplate({ id: 'fake-stub', adapter: 'stub', description: 'Fake machine with no capabilities (tests only)', ...overrides });
}
