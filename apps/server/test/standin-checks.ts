/**
 * Checks the stand-in suites (android, windows) share: a stand-in template is listed only to a
 * server started with VMHUB_STANDIN_TEMPLATES=1.
 */
import assert from 'node:assert/strict';
import { connect, type Sandbox, type Session } from './harness.ts';

/**
 * A second server on `box` without VMHUB_STANDIN_TEMPLATES (`env` besides) does not list template
 * `id`; `s`, started with it, lists it as available for `os` and says it is a stand-in.
 */
export async function assertStandinListedOnlyWithEnv(box: Sandbox, s: Session, id: string, os: string, env: Record<string, string> = {}): Promise<void> {
  const plain = await connect(box, env, 'no-standins');
  try {
    const ids = (await plain.call('vm_list_templates')).structuredContent.templates.map((t: any) => t.id);
    assert.ok(!ids.includes(id), `listed without the env var: ${ids.join(', ')}`);
  } finally {
    await plain.close();
  }
  const t = (await s.call('vm_list_templates')).structuredContent.templates.find((x: any) => x.id === id);
  assert.ok(t, 'listed with VMHUB_STANDIN_TEMPLATES=1');
  assert.equal(t.availability, 'available', t.reason);
  assert.equal(t.os, os);
  assert.match(t.description, /stand-in/i);
}
