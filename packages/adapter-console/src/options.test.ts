import assert from 'node:assert/strict';
import { test } from 'node:test';
import plugin from './index.ts';
import { consoleSettings } from './options.ts';

test('console options: snake_case keys reach the settings; an explicit key delay beats the env var', () => {
  const rt = consoleSettings({ key_delay_ms: 3, pointer_delay_ms: 4, drag_steps: 5, max_archive_bytes: 6 });
  assert.deepEqual([rt.keyDelayMs, rt.pointerDelayMs, rt.dragSteps, rt.maxArchiveBytes], [3, 4, 5, 6]);
  const saved = process.env.VMHUB_CONSOLE_KEY_DELAY_MS;
  process.env.VMHUB_CONSOLE_KEY_DELAY_MS = '42';
  try {
    assert.equal(consoleSettings({}).keyDelayMs, 42);
    assert.equal(consoleSettings({ key_delay_ms: 7 }).keyDelayMs, 7);
  } finally {
    if (saved === undefined) delete process.env.VMHUB_CONSOLE_KEY_DELAY_MS; else process.env.VMHUB_CONSOLE_KEY_DELAY_MS = saved;
  }
  const d = consoleSettings({});
  assert.deepEqual([d.pointerDelayMs, d.dragSteps, d.maxArchiveBytes], [15, 10, 256 * 1024 * 1024]);
});

test('console options: a pre-0.1 camelCase key is refused, naming it', () => {
  for (const old of ['keyDelayMs', 'pointerDelayMs', 'dragSteps', 'maxArchiveBytes']) {
    assert.throws(() => plugin.create({ [old]: 5 } as never),
      (e: { code?: string; message: string }) => e.code === 'INVALID_REQUEST' && e.message.includes(`unknown field "${old}"`), old);
  }
  assert.doesNotThrow(() => plugin.create({ key_delay_ms: 5, drag_steps: 3 }));
});
