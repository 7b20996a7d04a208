/**
 * Frames: one capture decoded once into the pixels of a region, with a digest of them. vm_wait
 * compares digests between polls (and with what the agent last saw), OCR reads the pixels, and
 * vm_screenshot shapes its image from the same decode.
 */
import { createHash } from 'node:crypto';
import { decodeRegion, type Region, type RegionPixels } from '../screenshot.ts';
import type { OcrImage } from '../ocr/types.ts';
import type { BoundLease } from './vm-tools.ts';

export interface Frame extends RegionPixels {
  /** Equal digests = identical pixels of the same region. */
  digest: string;
}

export function frameDigest(px: RegionPixels): string {
  return createHash('sha1').update(`${px.region.x},${px.region.y},${px.width}x${px.height}x${px.channels};`).update(px.data).digest('hex');
}

/** Capture the lease's screen now and decode `region` of it (default: the whole screen). */
export async function captureFrame(b: BoundLease, region?: Region): Promise<Frame> {
  const px = await decodeRegion(await b.session.screenshot!(b.context), region);
  return { ...px, digest: frameDigest(px) };
}

export const ocrImage = (px: RegionPixels): OcrImage => ({ data: px.data, width: px.width, height: px.height, channels: px.channels });

export const sameRegion = (a: Region, b: Region) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
