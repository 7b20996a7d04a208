/**
 * Finds the JSON-RPC `id` of a message too large to parse, so the answer to it can carry that id
 * (with `id: null` a client never matches the error to its request and waits for its own timeout).
 * It is a streaming scan fed chunk by chunk, never holding the message: it tracks nesting and
 * strings and captures the value of the top-level "id" key. The SDK client writes `id` last
 * (`{method, params, jsonrpc, id}`), so the whole message is scanned; inside strings it jumps with
 * indexOf (a base64 payload has no quote or backslash), so 100 MB take well under a second.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Longer ids (or keys) are not captured: no client uses them. */
const MAX_CAPTURE = 256;

export class MessageIdScanner {
  #depth = 0;
  #inString = false;
  #escape = false;
  /** At depth 1: the next string is a key (after `{` or `,`). */
  #expectKey = false;
  /** Capturing the current string (a top-level key, or the id's value). */
  #capture: number[] | undefined;
  #captureOverflow = false;
  #captureRole: 'key' | 'id' | undefined;
  #lastKey: string | undefined;
  /** After `"id":` at depth 1: the next value is the id. */
  #idValueNext = false;
  /** Capturing a bare number or literal id. */
  #bare: number[] | undefined;
  #topLevelObject: boolean | undefined;
  #id: string | number | null | undefined;

  /** The top-level id when one was seen (the last one, as JSON.parse would keep). */
  get id(): string | number | undefined {
    return this.#topLevelObject && this.#id !== null ? this.#id : undefined;
  }

  feed(buf: Uint8Array): void {
    let i = 0;
    const n = buf.length;
    while (i < n) {
      if (this.#inString) {
        i = this.#string(buf, i);
        continue;
      }
      const c = buf[i]!;
      if (this.#bare) {
        if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45 || (c >= 0x61 && c <= 0x7a)) {
          if (this.#bare.length < MAX_CAPTURE) this.#bare.push(c);
          i++;
          continue;
        }
        this.#endBare();
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { i++; continue; }
      if (this.#topLevelObject === undefined) this.#topLevelObject = c === 0x7b;
      if (c === 0x7b || c === 0x5b) {
        this.#idValueNext = false;
        this.#depth++;
        this.#expectKey = c === 0x7b && this.#depth === 1;
      } else if (c === 0x7d || c === 0x5d) {
        this.#depth--;
      } else if (c === 0x2c) {
        if (this.#depth === 1) this.#expectKey = true;
      } else if (c === 0x3a) {
        if (this.#depth === 1) this.#idValueNext = this.#lastKey === 'id';
      } else if (c === QUOTE) {
        this.#inString = true;
        this.#escape = false;
        this.#captureRole = undefined;
        if (this.#depth === 1 && this.#expectKey) { this.#captureRole = 'key'; this.#expectKey = false; }
        else if (this.#depth === 1 && this.#idValueNext) { this.#captureRole = 'id'; this.#idValueNext = false; }
        this.#capture = this.#captureRole ? [] : undefined;
        this.#captureOverflow = false;
      } else if (this.#depth === 1 && this.#idValueNext) {
        this.#idValueNext = false;
        this.#bare = [c];
      }
      i++;
    }
  }

  /** Call at the end of the message (a bare number at the very end has no delimiter after it). */
  end(): void {
    if (this.#bare) this.#endBare();
  }

  #endBare(): void {
    const text = Buffer.from(this.#bare!).toString('latin1');
    this.#bare = undefined;
    if (text === 'null') { this.#id = null; return; }
    const value = Number(text);
    if (/^-?\d/.test(text) && Number.isFinite(value)) this.#id = value;
  }

  /** Inside a string from `i`: returns where scanning continues. */
  #string(buf: Uint8Array, i: number): number {
    const n = buf.length;
    if (this.#capture) {
      // Captured strings are short: byte by byte.
      for (; i < n; i++) {
        const c = buf[i]!;
        if (this.#escape) { this.#escape = false; this.#push(c); continue; }
        if (c === BACKSLASH) { this.#escape = true; this.#push(c); continue; }
        if (c === QUOTE) { this.#endString(); return i + 1; }
        this.#push(c);
      }
      return n;
    }
    if (this.#escape) { this.#escape = false; i++; }
    // Each search runs once per quote or backslash found, never again over the same bytes.
    let q = -2;
    let b = -2;
    for (;;) {
      if (i >= n) return n;
      if (q !== -1 && q < i) q = buf.indexOf(QUOTE, i);
      if (b !== -1 && b < i) b = buf.indexOf(BACKSLASH, i);
      if (b !== -1 && (q === -1 || b < q)) {
        if (b + 1 >= n) { this.#escape = true; return n; }
        i = b + 2;
        continue;
      }
      if (q === -1) return n;
      this.#inString = false;
      return q + 1;
    }
  }

  #push(c: number): void {
    if (this.#capture!.length < MAX_CAPTURE) this.#capture!.push(c);
    else this.#captureOverflow = true;
  }

  #endString(): void {
    this.#inString = false;
    const bytes = this.#capture!;
    const role = this.#captureRole;
    this.#capture = undefined;
    let text: string | undefined;
    if (!this.#captureOverflow) {
      try { text = JSON.parse(`"${Buffer.from(bytes).toString('utf8')}"`) as string; } catch { text = undefined; }
    }
    if (role === 'key') this.#lastKey = text;
    else if (role === 'id' && text !== undefined) this.#id = text;
  }
}
