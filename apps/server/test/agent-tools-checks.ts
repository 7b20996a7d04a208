/**
 * Checks the agent-tools suites (x11, console) share: the same tools must behave the same on
 * every adapter, so the same assertion runs on each.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sharp from 'sharp';
import { createTesseractEngine, findMatches } from '@vmhub/core/ocr';
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

interface Region { x: number; y: number; width: number; height: number }
type Ok = (tool: string, args: Record<string, unknown>) => Promise<any>;

/**
 * vm_batch through `ok`: type `command`, Return, wait to settle (up to `seconds`), with the final
 * screenshot; the three steps asserted to have run and the wait satisfied. The result is returned.
 */
export async function typeReturnSettle(ok: Ok, command: string, seconds: number): Promise<any> {
  const r = await ok('vm_batch', {
    actions: [
      { action: 'type', text: command },
      { action: 'key', keys: 'Return' },
      { action: 'wait_for', for: 'settle', timeout_seconds: seconds },
    ],
    screenshot: true,
  });
  const b = r.structuredContent;
  assert.equal(b.completed, 3, JSON.stringify(b));
  assert.deepEqual(b.results.map((x: any) => [x.action, x.ok]), [['type', true], ['key', true], ['wait_for', true]], JSON.stringify(b.results));
  assert.equal(b.results[2].result?.satisfied, true);
  return r;
}

/**
 * Whether tesseract reads `word` on an encoded image (PNG, JPEG), through core's own OCR and
 * matching (what vm_find_text does): an OCR slip ("vmhubseen8s997" for "vmhubseen8997") still
 * counts, as it does for an agent. `read` is every word recognised, for a failure's message.
 */
export async function imageShows(image: Buffer, word: string): Promise<{ shows: boolean; read: string }> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const seen = await createTesseractEngine({}).recognize({ data, width: info.width, height: info.height, channels: info.channels as 3 | 4 });
  return { shows: findMatches(seen, word, { minConfidence: 0.3 }).length >= 1, read: seen.map((w) => w.text).join(' ') };
}

/** The batch's final screenshot comes with it, and tesseract reads `word` in it. */
export async function assertFinalShotShows(r: any, word: string): Promise<void> {
  const image = r.content.find((c: any) => c.type === 'image');
  assert.ok(image && r.structuredContent.screenshot, 'the final screenshot comes with the batch');
  const { shows, read } = await imageShows(Buffer.from(image.data, 'base64'), word);
  assert.ok(shows, `the final screenshot shows ${word}: ${read}`);
}

/** A vm_batch that types `text` and Return before an invalid scroll is refused whole: INVALID_REQUEST naming actions[2]. */
export async function assertBatchRefused(s: Session, lease: string, text: string): Promise<void> {
  const refused = await s.call('vm_batch', {
    lease_id: lease,
    actions: [
      { action: 'type', text },
      { action: 'key', keys: 'Return' },
      { action: 'scroll', x: -5, y: 10, direction: 'down' },
    ],
  });
  assert.equal(errorCode(refused), 'INVALID_REQUEST', JSON.stringify(refused.structuredContent));
  assert.match(refused.structuredContent.message, /actions\[2\] \(scroll\)/);
}

/**
 * A 4× zoom of `region` (a 200×100 one), through `ok` (vm_screenshot on the suite's lease):
 * asserted 800×400 at scale 4 with the region's origin, in its output and in the image itself.
 */
export async function zoom4(ok: Ok, region: Region): Promise<void> {
  const zoom = await ok('vm_screenshot', { region, scale: 4, format: 'png' });
  const z = zoom.structuredContent;
  assert.deepEqual([z.width, z.height, z.scale, z.origin], [800, 400, 4, { x: region.x, y: region.y }]);
  const meta = await sharp(Buffer.from(zoom.content.find((c: any) => c.type === 'image').data, 'base64')).metadata();
  assert.deepEqual([meta.width, meta.height], [800, 400]);
}

/** The screen pixel that point `p` of a 4× zoom of `region` shows. */
export const zoomedPixel = (region: Region, p: { x: number; y: number }) => ({ x: region.x + Math.floor(p.x / 4), y: region.y + Math.floor(p.y / 4) });

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
