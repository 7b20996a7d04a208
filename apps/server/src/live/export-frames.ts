/**
 * A recording's steps (as Recordings.steps() gives them: images by file name) ready for export:
 * each step with the frame before it and the frame after it. The frame after a step is its own
 * image (the screenshot the agent got, or the frame captured after an input); the frame before a
 * step is the latest whole-screen image of an earlier step — the screen as last seen before the
 * step began — or none (a `vm_screenshot` of a region, a changed box or with marks drawn is its
 * step's frame after, never a later step's frame before: the recorder's own rule). Each distinct image is one Frame, named `images/NNNN.<ext>` after the first step that
 * shows it, with its bytes, media type and pixel size: each image file is read once, through
 * the reader given (Recordings.image), as bytes — no data URL made and decoded again.
 */
import sharp from 'sharp';
import { wholeScreenshot, type Step } from './recorder.ts';

/** A recording's image file by name (Recordings.image), or undefined when it cannot be read. */
export type ImageReader = (name: string) => Promise<{ data: Buffer; mime: string } | undefined>;

export interface Frame {
  /** Relative to the export's root: `images/0004.png`. */
  path: string;
  media_type: 'image/png' | 'image/jpeg' | 'image/webp';
  data: Buffer;
  width: number;
  height: number;
}

export interface ExportStep {
  /** The step without its image. */
  step: Omit<Step, 'screenshot'>;
  before?: Frame;
  after?: Frame;
}

const EXT: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** `steps` in order with their frames; an image the reader cannot give (or not an image) is no frame. */
export async function exportSteps(steps: readonly Step[], image: ImageReader): Promise<ExportStep[]> {
  // One Frame per image file (null: none could be made of it).
  const frames = new Map<string, Frame | null>();
  const out: ExportStep[] = [];
  let last: Frame | undefined;
  for (const { screenshot, ...step } of steps) {
    if (screenshot !== undefined && !frames.has(screenshot)) frames.set(screenshot, await frameOf(await image(screenshot), step.seq));
    const after = screenshot === undefined ? undefined : frames.get(screenshot) ?? undefined;
    out.push({ step, ...(last ? { before: last } : {}), ...(after ? { after } : {}) });
    // Any other step's image is the whole screen (a frame after an input, a click's screenshot).
    if (after && (step.tool !== 'vm_screenshot' || wholeScreenshot(step.tool, step.args))) last = after;
  }
  return out;
}

async function frameOf(file: { data: Buffer; mime: string } | undefined, seq: number): Promise<Frame | null> {
  const ext = file && EXT[file.mime];
  if (!file || !ext) return null;
  const meta = await sharp(file.data).metadata().catch(() => undefined);
  if (!meta?.width || !meta.height) return null;
  return { path: `images/${String(seq).padStart(4, '0')}.${ext}`, media_type: file.mime as Frame['media_type'], data: file.data, width: meta.width, height: meta.height };
}

/** Every distinct frame of `steps`, in the order first shown. */
export function framesOf(steps: readonly ExportStep[]): Frame[] {
  return [...new Set(steps.flatMap((s) => (s.after ? [s.after] : [])))];
}
