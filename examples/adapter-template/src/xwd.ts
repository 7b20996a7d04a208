/**
 * XWD → packed RGB. sharp cannot read XWD and the golden has no converter, so the frame is
 * decoded here. Only what `xwd -root` writes for a 24-bit screen (Xvfb's default) is handled —
 * ZPixmap, 32 bits per pixel, masks ff0000/00ff00/0000ff — and anything else is refused with the
 * fix rather than guessed at.
 */
import { exampleError } from './errors.ts';

export function xwdToRgb(dump: Buffer): { data: Buffer; width: number; height: number } {
  // The header is 25 big-endian 32-bit fields (X11's XWDFileHeader); version 7 is the only one.
  const field = (i: number) => dump.readUInt32BE(i * 4);
  if (dump.length < 100 || field(1) !== 7) throw exampleError('INTERNAL', `xwd wrote ${dump.length} bytes that are not an XWD dump: is the X display up?`);
  const [headerSize, format, width, height, byteOrder, bpp, bytesPerLine, red, green, blue, ncolors] =
    [0, 2, 4, 5, 7, 11, 12, 14, 15, 16, 19].map(field) as [number, number, number, number, number, number, number, number, number, number, number];
  if (format !== 2 || bpp !== 32 || red !== 0xff0000 || green !== 0xff00 || blue !== 0xff) {
    throw exampleError('INTERNAL', `the X screen is not 24-bit TrueColor (format ${format}, ${bpp} bpp): run the X server at depth 24, e.g. Xvfb -screen 0 1280x800x24`);
  }
  const start = headerSize + ncolors * 12; // pixels follow the header and its colour map
  if (dump.length < start + bytesPerLine * height) throw exampleError('INTERNAL', `the xwd dump of ${width}x${height} is truncated at ${dump.length} bytes`);
  // Each pixel is the 32-bit word 0x00RRGGBB in the byte order the header names (0: LSB first).
  const [r, g, b] = byteOrder === 0 ? [2, 1, 0] : [1, 2, 3];
  const data = Buffer.allocUnsafe(width * height * 3);
  let o = 0;
  for (let y = 0; y < height; y++) {
    for (let p = start + y * bytesPerLine, end = p + width * 4; p < end; p += 4) {
      data[o++] = dump[p + r]!;
      data[o++] = dump[p + g]!;
      data[o++] = dump[p + b]!;
    }
  }
  return { data, width, height };
}
