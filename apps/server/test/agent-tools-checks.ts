/**
 * Checks the agent-tools suites (x11, console) share: the same tools must behave the same on
 * every adapter, so the same assertion runs on each.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { connect, errorCode, leaseReady, type Sandbox, type Session } from './harness.ts';

/**
 * The suites' first two tests: `template` leased through `session()` and ready within `seconds`
 * (`leased(id)` hears of the lease at once, for the after hook), then assertTextToolsNeedOcr with
 * `text` — first, before the suite's server opens the lease's screen: QEMU's console monitor serves
 * one client at a time, and the second server needs it for its screenshot.
 */
export function leaseThenOcrOff(box: Sandbox, session: () => Session, template: string, seconds: number, text: string, leased: (id: string) => void): void {
  let lease = '';
  it('lease → ready', async () => {
    await leaseReady(session(), { template, ttl_seconds: 1800 }, seconds, (id) => { lease = id; leased(id); });
  });
  it('without an OCR engine (VMHUB_OCR=none) the text tools answer CAPABILITY_UNAVAILABLE with the install hint; screenshots still work', async () => {
    await assertTextToolsNeedOcr(box, lease, text);
  });
}

/**
 * A second server on the same lease with OCR turned off (VMHUB_OCR=none): every text tool answers
 * CAPABILITY_UNAVAILABLE naming tesseract, and a plain screenshot still works.
 */
export async function assertTextToolsNeedOcr(box: Sandbox, lease: string, text: string): Promise<void> {
  const off = await connect(box, { VMHUB_OCR: 'none' }, 'no-ocr');
  try {
    const calls: [string, Record<string, unknown>][] = [
      ['vm_find_text', { text }],
      ['vm_wait', { for: 'text', text, timeout_seconds: 1 }],
      ['vm_click', { text }],
      ['vm_screenshot', { marks: true }],
    ];
    for (const [tool, args] of calls) {
      const r = await off.call(tool, { lease_id: lease, ...args });
      assert.equal(errorCode(r), 'CAPABILITY_UNAVAILABLE', `${tool}: ${JSON.stringify(r.structuredContent)}`);
      assert.match(`${r.structuredContent.message} ${r.structuredContent.hint}`, /tesseract/i, `${tool} says how to get OCR`);
    }
    const plain = await off.call('vm_screenshot', { lease_id: lease });
    assert.equal(plain.isError, undefined, JSON.stringify(plain.structuredContent));
  } finally {
    await off.close();
  }
}
