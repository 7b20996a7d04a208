/**
 * @vmhub/conformance's provider suite on a real qemu booting tiny-console-agent, so the
 * guest-agent channel (exec, 64 KB file round trip, NOT_FOUND) is exercised too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { runProviderConformance } from '@vmhub/conformance';
import plugin, { buildGolden, tinyConsoleAgentTemplate } from '../src/index.ts';

const root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-conf-'));
after(() => rm(root, { recursive: true, force: true }));
await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });

runProviderConformance({
  plugin,
  options: { state_dir: join(root, 'state') },
  template: tinyConsoleAgentTemplate(join(root, 'golden')),
  timeoutMs: 240_000,
  channelPath: '/root/vmhub-conformance.bin',
});
