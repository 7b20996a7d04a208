/**
 * Core-protocol requests both users need, built and read here so no caller packs them by hand:
 * QueryExtension, InternAtom, GetProperty (32-bit values) and the event mask of a window.
 */
import { pad4, type XConnection } from './connection.ts';

const X_CHANGE_WINDOW_ATTRIBUTES = 2;
const X_INTERN_ATOM = 16;
const X_GET_PROPERTY = 20;
const X_QUERY_EXTENSION = 98;
const CW_EVENT_MASK = 0x800;

/** Event-mask bits (the core protocol's SETofEVENT). */
export const PROPERTY_CHANGE_MASK = 0x400000;
/** Event codes. */
export const PROPERTY_NOTIFY = 28;
export const MAPPING_NOTIFY = 34;
/** Predefined atoms. */
export const ATOM_WINDOW = 33;

/** A request whose body is 32-bit values after its 4-byte header: GetProperty, ChangeWindowAttributes. */
function wordsRequest(opcode: number, data: number, words: number[]): Buffer {
  const req = Buffer.alloc(4 + words.length * 4);
  req[0] = opcode;
  req[1] = data;
  req.writeUInt16LE(req.length / 4, 2);
  words.forEach((w, i) => req.writeUInt32LE(w, 4 + i * 4));
  return req;
}

/** A request whose body is a name (STRING8 after a 4-byte header and its length): QueryExtension, InternAtom. */
function nameRequest(opcode: number, data: number, name: string): Buffer {
  const bytes = Buffer.from(name, 'latin1');
  const req = Buffer.alloc(8 + bytes.length + pad4(bytes.length));
  req[0] = opcode;
  req[1] = data;
  req.writeUInt16LE(req.length / 4, 2);
  req.writeUInt16LE(bytes.length, 4);
  bytes.copy(req, 8);
  return req;
}

/** The extension's major opcode, or undefined when the server does not have it. */
export async function queryExtension(x: XConnection, name: string): Promise<number | undefined> {
  const reply = await x.request(nameRequest(X_QUERY_EXTENSION, 0, name));
  return reply[8] ? reply[9] : undefined;
}

/** The atom of `name`; with `onlyIfExists`, 0 when no client has made it yet. */
export async function internAtom(x: XConnection, name: string, onlyIfExists = true): Promise<number> {
  return (await x.request(nameRequest(X_INTERN_ATOM, onlyIfExists ? 1 : 0, name))).readUInt32LE(8);
}

/** Up to `max` 32-bit values of a window's property of `type`; empty when the window does not have it. */
export async function getProperty32(x: XConnection, window: number, atom: number, type: number, max = 1): Promise<number[]> {
  // delete: no; long-offset 0.
  const reply = await x.request(wordsRequest(X_GET_PROPERTY, 0, [window, atom, type, 0, max]));
  if (reply[1] !== 32) return [];
  const n = Math.min(reply.readUInt32LE(16), max);
  return Array.from({ length: n }, (_, i) => reply.readUInt32LE(32 + i * 4));
}

/** Select `mask` events on `window` for this connection (ChangeWindowAttributes; no reply). */
export function selectEvents(x: XConnection, window: number, mask: number): number {
  return x.send(wordsRequest(X_CHANGE_WINDOW_ATTRIBUTES, 0, [window, CW_EVENT_MASK, mask]));
}
