/**
 * The fake VM the router's agent-tool tests drive through the SDK Client: a session whose
 * screenshot() returns frames the test controls (encoded with sharp), input methods that record
 * what they were asked, and an OcrEngine that returns the words the test chooses and counts its
 * runs. It holds no tests itself (the name keeps it out of the build).
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import sharp from 'sharp';
import type { Adapter, InspectRequest, InspectResult, OpenSession } from '../adapter.ts';
import type { Capability } from '../capabilities.ts';
import type { RawScreen } from '../channel.ts';
import { VmhubError } from '../errors.ts';
import type { OcrEngine, OcrImage, OcrWord } from '../ocr/types.ts';
import type { ElementNode, WindowInfo } from '../shapes.ts';
import { createRouter } from './index.ts';
import type { RouterHost, ScreenState } from './types.ts';

export type Rgb = [number, number, number];
export interface Rect { x: number; y: number; width: number; height: number; color: Rgb }

/** A PNG capture: a solid background with rectangles drawn on it. */
export async function frame(width: number, height: number, background: Rgb, rects: Rect[] = []): Promise<RawScreen> {
  const data = Buffer.alloc(width * height * 3);
  const paint = (x0: number, y0: number, w: number, h: number, c: Rgb) => {
    for (let y = y0; y < Math.min(height, y0 + h); y++) for (let x = x0; x < Math.min(width, x0 + w); x++) data.set(c, (y * width + x) * 3);
  };
  paint(0, 0, width, height, background);
  for (const r of rects) paint(r.x, r.y, r.width, r.height, r.color);
  return { data: await sharp(data, { raw: { width, height, channels: 3 } }).png().toBuffer(), format: 'png', width, height };
}

/** The colour at (x, y) of an OCR image (how the fake engine tells frames apart). */
export function pixel(img: OcrImage, x: number, y: number): Rgb {
  const i = (y * img.width + x) * img.channels;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
}

export const word = (text: string, x: number, y: number, width: number, height: number, line = 0, confidence = 0.95): OcrWord => ({ text, confidence, x, y, width, height, line });

export interface Input { kind: string; args: Record<string, unknown> }

export interface FakeVmOptions {
  /** The next capture; called once per screenshot(). */
  capture: (n: number) => Promise<RawScreen> | RawScreen;
  /** Words for an image; `false`: the host has no OCR engine; a VmhubError: host.screenshots.ocr() rejects with it. */
  ocr?: ((img: OcrImage) => OcrWord[]) | false | VmhubError;
  capabilities?: Capability[];
  /** The tree inspect() answers, or how it answers a request (the request as the adapter got it). */
  inspect?: ElementNode | ((request: InspectRequest) => Promise<InspectResult>);
  screenSize?: { width: number; height: number };
  /** What listWindows() answers (none: the session has no listWindows). */
  windows?: WindowInfo[];
  /** Input kinds whose call fails (INTERNAL), e.g. "type". */
  failing?: string[];
}

export interface FakeVm {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  inputs: Input[];
  captures: number;
  ocrRuns: number;
  screen: ScreenState;
  close(): Promise<void>;
}

const ALL: Capability[] = ['screenshot', 'click', 'type', 'key', 'paste', 'drag', 'scroll'];

export async function fakeVm(options: FakeVmOptions): Promise<FakeVm> {
  const vm = { inputs: [] as Input[], captures: 0, ocrRuns: 0, screen: {} as ScreenState };
  const record = (kind: string) => async (_ctx: unknown, args: Record<string, unknown>) => {
    if (options.failing?.includes(kind)) throw new VmhubError('INTERNAL', `[fake] ${kind} failed`);
    vm.inputs.push({ kind, args });
  };
  const capabilities = options.capabilities ?? [...ALL, ...(options.inspect ? ['inspect' as const] : [])];
  const session = {
    lease_id: 'lease-1', disposed: false, dispose: async () => undefined,
    screenshot: async () => options.capture(vm.captures++),
    click: record('click'), type: record('type'), key: record('key'), paste: record('paste'), drag: record('drag'), scroll: record('scroll'),
    ...(options.inspect ? { inspect: async (_ctx: unknown, request: InspectRequest) => (typeof options.inspect === 'function' ? options.inspect(request) : { source: 'fake', tree: options.inspect! }) } : {}),
    ...(options.screenSize ? { screenSize: async () => options.screenSize! } : {}),
    ...(options.windows ? { listWindows: async () => options.windows! } : {}),
  } as unknown as OpenSession;
  const adapter = { kind: 'adapter', id: 'fake', version: '0.0.0', contractVersion: 2, capabilities, verbs: [], open: async () => session } as unknown as Adapter;
  const engine: OcrEngine = {
    id: 'fake-ocr',
    async recognize(img) { vm.ocrRuns++; return typeof options.ocr === 'function' ? options.ocr(img) : []; },
  };
  const ocr = options.ocr;
  const host: RouterHost = {
    sessions: {
      async bind(leaseId, signal) {
        return {
          lease_id: leaseId, expires_at: new Date(Date.now() + 3600_000).toISOString(),
          template: { id: 'fake-template', adapter: 'fake' } as never, adapter, session, screen: vm.screen,
          context: { lease_id: leaseId, signal } as never,
        };
      },
    },
    ...(ocr === false ? {} : { screenshots: { ocr: async () => { if (ocr instanceof VmhubError) throw ocr; return engine; } } }),
    settings: { denyTools: [], screenshot: { format: 'png', maxWidth: 1280, maxHeight: 800, maxBytes: 800_000 }, maxFileBytes: 1 << 20, callTimeoutSeconds: 30 },
  };
  const server = new McpServer({ name: 'router-test', version: '0.0.0' }, { capabilities: { tools: {} } });
  createRouter(host).register(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'router-test-client', version: '0.0.0' });
  await client.connect(clientSide);
  await client.listTools(); // the Client then checks every result against the tool's outputSchema
  return Object.assign(vm, {
    call: async (name: string, args: Record<string, unknown> = {}) => await client.callTool({ name, arguments: { lease_id: 'lease-1', ...args } }) as CallToolResult,
    close: async () => { await client.close(); await server.close(); },
  });
}

export const out = (r: CallToolResult) => r.structuredContent as Record<string, any>;
export function ok(r: CallToolResult): Record<string, any> {
  assert.ok(!r.isError, `expected success, got ${JSON.stringify(r.structuredContent)}`);
  return out(r);
}
export function failed(r: CallToolResult, code: string): Record<string, any> {
  assert.ok(r.isError, `expected ${code}, got success ${JSON.stringify(r.structuredContent)}`);
  assert.equal(out(r).code, code, JSON.stringify(r.structuredContent));
  return out(r);
}
