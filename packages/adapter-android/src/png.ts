/** The pixel size of a PNG from its IHDR chunk (the first chunk, right after the signature). */
import { androidError } from './errors.ts';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.length < 24 || !png.subarray(0, 8).equals(SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') {
    const head = png.subarray(0, 16).toString('latin1').replace(/[^\x20-\x7e]/g, '.');
    throw androidError('INTERNAL', `screencap -p did not return a PNG (${png.length} bytes, starting ${JSON.stringify(head)})${png.length === 0 ? ': is the display up?' : ''}`);
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
