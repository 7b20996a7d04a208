// The exports' frames before and after each step, in process: one frame per distinct image named
// after the first step that shows it, the frame before as the latest whole-screen image (never a
// region screenshot), a recorder note as an ATIF system step, and the hf tar the same bytes twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LeaseInfo } from '@vmhub/core';
import sharp from 'sharp';
import { atifTrajectory } from './export-atif.ts';
import { exportSteps, framesOf } from './export-frames.ts';
import { hfRows, hfTar } from './export-hf.ts';
import type { Step } from './recorder.ts';

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#336699' } }).png().toBuffer();
const lease = { lease_id: '0123abcd-0000-4000-8000-000000000000', template: 'fake-desktop', status: 'ready', created_at: '2026-12-01T10:00:00.000Z' } as LeaseInfo;
const step = (seq: number, tool: string, extra: Partial<Step> = {}): Step => ({ seq, at: `2026-12-01T10:00:0${seq}.000Z`, actor: 'agent', tool, outcome: 'ok', duration_ms: 5, args: {}, ...extra });

describe('recording exports: frames before and after', async () => {
  // The recording's image files, by the names steps() gives (Recordings.image reads them).
  const files = new Map<string, Buffer>([['0002.png', await png(40, 30)], ['0003.png', await png(10, 10)], ['0005.png', await png(41, 30)]]);
  const reads: string[] = [];
  const image = async (name: string) => { reads.push(name); const data = files.get(name); return data ? { data, mime: 'image/png' } : undefined; };
  const steps = [
    step(1, 'vm_lease_status'),
    step(2, 'vm_screenshot', { screenshot: '0002.png' }),
    step(3, 'vm_screenshot', { args: { region: { x: 0, y: 0, width: 10, height: 10 } }, screenshot: '0003.png' }),
    step(4, 'vm_click', { args: { x: 1, y: 2 }, screenshot: '0002.png' }),
    step(5, 'input', { actor: 'human', principal: 'p', args: { type: 'type', text: 'x' }, screenshot: '0005.png' }),
    step(6, 'recording', { note: 'recording keeps no more images' }),
    step(7, 'vm_click', { screenshot: '0007.png' }),
  ];

  it('names each image once, after its first step, each file read once; the frame before skips region screenshots; an image that cannot be read is no frame', async () => {
    reads.length = 0;
    const out = await exportSteps(steps, image);
    assert.deepEqual(out.map((s) => [s.before?.path ?? null, s.after?.path ?? null]), [
      [null, null], [null, 'images/0002.png'], ['images/0002.png', 'images/0003.png'], ['images/0002.png', 'images/0002.png'],
      ['images/0002.png', 'images/0005.png'], ['images/0005.png', null], ['images/0005.png', null],
    ]);
    assert.deepEqual(framesOf(out).map((f) => [f.path, f.width, f.height]), [['images/0002.png', 40, 30], ['images/0003.png', 10, 10], ['images/0005.png', 41, 30]]);
    assert.ok(framesOf(out)[0]!.data.equals(files.get('0002.png')!), 'the frame is the file\'s bytes');
    assert.deepEqual(reads, ['0002.png', '0003.png', '0005.png', '0007.png'], 'each file read once');
    assert.ok(!('screenshot' in out[1]!.step), 'the step goes without its file name');
  });

  it('ATIF: agent, user and system steps, frames as data URLs; hf: one row per step and the same tar twice', async () => {
    const out = await exportSteps(steps, image);
    const atif = atifTrajectory(lease, out, '9.9.9') as { steps: any[] };
    assert.deepEqual(atif.steps.map((s) => s.source), ['agent', 'agent', 'agent', 'agent', 'user', 'system', 'agent']);
    assert.equal(atif.steps[5].message, 'recording keeps no more images');
    assert.equal(atif.steps[3].extra.vmhub.before_frame_step_id, 2);
    assert.equal(atif.steps[0].observation.results[0].content, '{"outcome":"ok"}');
    const part = atif.steps[3].observation.results[0].content[1];
    assert.equal(part.source.path, `data:image/png;base64,${files.get('0002.png')!.toString('base64')}`);
    const rows = hfRows(lease, out);
    assert.deepEqual(rows.map((r) => r.actor), ['agent', 'agent', 'agent', 'agent', 'person', 'agent', 'agent']);
    assert.ok(hfTar(lease, out).equals(hfTar(lease, await exportSteps(steps, image))));
  });
});
