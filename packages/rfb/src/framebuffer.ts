/**
 * The client's copy of the remote screen: RGBA, 4 bytes a pixel, alpha always 255. The pixel
 * format the client asks for (32 bpp, depth 24, little-endian, true colour, R/G/B shifts 0/8/16)
 * puts each pixel on the wire as R, G, B, X, so Raw rectangles are copied row by row and only
 * the fourth byte is fixed up.
 */
export class Framebuffer {
  data: Buffer;
  width: number;
  height: number;
  constructor(width: number, height: number) {
    this.width = width;
    this.height = height;
    this.data = Buffer.alloc(width * height * 4);
    for (let i = 3; i < this.data.length; i += 4) this.data[i] = 255;
  }

  /** A new, black framebuffer of the new size (DesktopSize: the server sends the content next). */
  resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    this.data = Buffer.alloc(width * height * 4);
    for (let i = 3; i < this.data.length; i += 4) this.data[i] = 255;
  }

  /** The part of a rectangle inside the framebuffer (a server may send rectangles across a resize). */
  clip(x: number, y: number, w: number, h: number): { w: number; h: number } {
    return { w: Math.max(0, Math.min(w, this.width - x)), h: Math.max(0, Math.min(h, this.height - y)) };
  }

  /** Raw pixels, w*h*4 bytes in wire order R, G, B, X. */
  raw(x: number, y: number, w: number, h: number, pixels: Buffer): void {
    const c = this.clip(x, y, w, h);
    const fb = this.data;
    for (let row = 0; row < c.h; row++) {
      const dst = ((y + row) * this.width + x) * 4;
      pixels.copy(fb, dst, row * w * 4, row * w * 4 + c.w * 4);
      for (let i = dst + 3, end = dst + c.w * 4; i < end; i += 4) fb[i] = 255;
    }
  }

  /** CopyRect: the source rectangle is copied first, so overlapping source and destination work. */
  copyRect(x: number, y: number, w: number, h: number, sx: number, sy: number): void {
    const c = this.clip(x, y, w, h);
    const s = this.clip(sx, sy, c.w, c.h);
    if (s.w === 0 || s.h === 0) return;
    const stride = this.width * 4;
    const tmp = Buffer.allocUnsafe(s.w * s.h * 4);
    for (let row = 0; row < s.h; row++) this.data.copy(tmp, row * s.w * 4, (sy + row) * stride + sx * 4, (sy + row) * stride + (sx + s.w) * 4);
    for (let row = 0; row < s.h; row++) tmp.copy(this.data, (y + row) * stride + x * 4, row * s.w * 4, (row + 1) * s.w * 4);
  }

  /** A run of `count` pixels of one colour, starting at pixel index `i` of a tile at (tx, ty) of width tw. */
  fillRun(tx: number, ty: number, tw: number, i: number, count: number, r: number, g: number, b: number): void {
    const fb = this.data;
    const W = this.width;
    const H = this.height;
    while (count > 0) {
      const col = i % tw;
      const row = (i - col) / tw;
      const n = Math.min(count, tw - col);
      const py = ty + row;
      if (py < H) {
        let px = tx + col;
        let o = (py * W + px) * 4;
        for (let k = 0; k < n; k++, px++, o += 4) {
          if (px >= W) break;
          fb[o] = r; fb[o + 1] = g; fb[o + 2] = b;
        }
      }
      i += n;
      count -= n;
    }
  }
}
