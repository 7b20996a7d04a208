/**
 * A recording's steps (as Recordings.read() gives them: images as data URLs) ready for export:
 * each step with the frame before it and the frame after it. The frame after a step is its own
 * image (the screenshot the agent got, or the frame captured after an input); the frame before a
 * step is the latest whole-screen image of an earlier step — the screen as last seen before the
 * step began — or none (a `vm_screenshot` of a region, a changed box or with marks drawn is its
 * step's frame after, never a later step's frame before: the recorder's own rule). Each distinct image is one Frame, named `images/NNNN.<ext>` after the first step that
 * shows it, with its bytes, media type and pixel size. Nothing here reads the disk: the reader did.
 */
import sharp from 'sharp';
import type { Step } from './recorder.ts';

export interface Frame {
  /** Relative to the export's root: `images/0004.png`. */
  path: string;
  media_type: 'image/png' | 'image/jpeg' | 'image/webp';
  data: Buffer;
  /** The data URL the reader gave (ATIF carries images inline). */
  url: string;
  width: number;
  height: number;
}

export interface ExportStep {
  /** The step without its image. */
  step: Omit<Step, 'screenshot'>;
  before?: Frame;
  after?: Frame;
}

const DATA_URL = /^data:(image\/(png|jpeg|webp));base64,([A-Za-z0-9+/]*={0,2})$/;
const EXT = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' } as const;

/** `steps` in order with their frames; an image the reader could not give (no data URL) is no frame. */
export async function exportSteps(steps: readonly Step[]): Promise<ExportStep[]> {
  // The reader gives one string per image file: the same file, the same string.
  const frames = new Map<string, Frame>();
  const out: ExportStep[] = [];
  let last: Frame | undefined;
  for (const { screenshot, ...step } of steps) {
    let after: Frame | undefined;
    const m = screenshot === undefined ? null : DATA_URL.exec(screenshot);
    if (screenshot !== undefined && m) {
      after = frames.get(screenshot);
      if (!after) {
        const media_type = m[1] as Frame['media_type'];
        const data = Buffer.from(m[3]!, 'base64');
        const meta = await sharp(data).metadata().catch(() => undefined);
        if (meta?.width && meta.height) {
          after = { path: `images/${String(step.seq).padStart(4, '0')}.${EXT[media_type]}`, media_type, data, url: screenshot, width: meta.width, height: meta.height };
          frames.set(screenshot, after);
        }
      }
    }
    out.push({ step, ...(last ? { before: last } : {}), ...(after ? { after } : {}) });
    if (after && wholeScreen(step)) last = after;
  }
  return out;
}

function wholeScreen(step: Omit<Step, 'screenshot'>): boolean {
  const a = step.args as { region?: unknown; changed_only?: unknown; marks?: unknown };
  return step.tool !== 'vm_screenshot' || (!a.region && !a.changed_only && !a.marks);
}

/** Every distinct frame of `steps`, in the order first shown. */
export function framesOf(steps: readonly ExportStep[]): Frame[] {
  return [...new Set(steps.flatMap((s) => (s.after ? [s.after] : [])))];
}
