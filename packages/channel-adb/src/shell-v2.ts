/**
 * adb shell protocol v2 (AOSP adb/shell_protocol.h): both directions carry packets of
 * `[id: u8][length: u32 LE][payload]`. Ids: 0 stdin, 1 stdout, 2 stderr, 3 exit (one byte: the
 * status), 4 close-stdin, 5 window-size change (pty only; unused with `raw:`). This is what gives
 * separate stderr, a real exit code and a stdin EOF, which the legacy `shell:` service lacks.
 */
export const ID_STDIN = 0;
export const ID_STDOUT = 1;
export const ID_STDERR = 2;
export const ID_EXIT = 3;
export const ID_CLOSE_STDIN = 4;

/** adbd reads stdin packets into a buffer of this many bytes; larger payloads are split. */
export const MAX_PAYLOAD = 64 * 1024;

export function packet(id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head[0] = id;
  head.writeUInt32LE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** Packets for `data` on stdin, then close-stdin. */
export function stdinPackets(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length; i += MAX_PAYLOAD) out.push(packet(ID_STDIN, data.subarray(i, i + MAX_PAYLOAD)));
  out.push(packet(ID_CLOSE_STDIN));
  return out;
}

/** Incremental decoder: feed socket chunks, get whole packets (a packet may span chunks). */
export class PacketDecoder {
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  push(chunk: Buffer): { id: number; payload: Buffer }[] {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    const out: { id: number; payload: Buffer }[] = [];
    if (this.#pendingBytes < 5) return out;
    let buf = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending);
    let at = 0;
    while (buf.length - at >= 5) {
      const len = buf.readUInt32LE(at + 1);
      if (buf.length - at - 5 < len) break;
      out.push({ id: buf[at]!, payload: buf.subarray(at + 5, at + 5 + len) });
      at += 5 + len;
    }
    buf = buf.subarray(at);
    this.#pending = buf.length ? [buf] : [];
    this.#pendingBytes = buf.length;
    return out;
  }
}
