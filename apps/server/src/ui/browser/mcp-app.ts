/**
 * The MCP App's View (ui://vmhub/lease-view.html, src/mcp-app.ts): runs in the host's sandboxed
 * iframe and talks only to the host (app-channel.ts: MCP Apps' postMessage JSON-RPC). It learns the
 * lease from the tool call it sits under (vm_lease_create's result, vm_screenshot's arguments),
 * then reads vmhub://leases/{id}/live about once a second while visible: the state and the
 * screen. Take over asks the host to open the lease's dashboard page (a person takes control
 * there, signed in; never through the agent's connection).
 */
import { AppChannel } from './app-channel.ts';

/** Between two reads of the lease (ms); longer while the View is hidden. */
const TICK_MS = 1000;
const HIDDEN_TICK_MS = 5000;

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const screen = $<HTMLImageElement>('screen');
const status = $<HTMLElement>('status');
const control = $<HTMLElement>('control');
const note = $<HTMLElement>('note');
const takeover = $<HTMLButtonElement>('takeover');

let leaseId: string | undefined;
let dashboard: string | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
let frames = 0;

const app = new AppChannel();

function leaseOf(value: unknown): string | undefined {
  const id = (value as { lease_id?: unknown } | undefined)?.lease_id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

function show(id: string | undefined): void {
  if (!id || id === leaseId) return;
  leaseId = id;
  document.body.dataset.lease = id;
  schedule(0);
}

app.on('ui/notifications/tool-input', (params) => show(leaseOf(params.arguments)));
app.on('ui/notifications/tool-result', (params) => show(leaseOf(params.structuredContent) ?? leaseId));

function schedule(ms: number): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => void tick(), ms);
}

async function tick(): Promise<void> {
  if (!leaseId) return;
  try {
    const read = await app.request<{ contents: unknown[] }>('resources/read', { uri: `vmhub://leases/${leaseId}/live` });
    const [head, image] = read.contents as Array<{ text?: string; blob?: string; mimeType?: string }>;
    const state = JSON.parse(head?.text ?? '{}') as { status?: string; control?: string; dashboard?: string; screen_error?: { message: string } };
    status.textContent = state.status ?? '?';
    control.textContent = state.control ?? '?';
    document.body.dataset.control = state.control ?? '';
    dashboard = state.dashboard;
    takeover.disabled = !dashboard;
    takeover.title = dashboard ? 'Open this lease in the vmhub dashboard, where you take over' : 'The dashboard is served by vmhub-server --http';
    if (image?.blob) {
      screen.src = `data:${image.mimeType ?? 'image/jpeg'};base64,${image.blob}`;
      screen.dataset.frame = String(++frames);
      note.textContent = '';
    } else {
      note.textContent = state.screen_error?.message ?? (state.status === 'ready' ? '' : `The machine is ${state.status}.`);
    }
    if (state.status !== undefined && !['ready', 'provisioning', 'starting'].includes(state.status)) return; // ended: nothing more to show
  } catch (err) {
    note.textContent = `Cannot read the lease: ${(err as Error).message}`;
  }
  schedule(document.hidden ? HIDDEN_TICK_MS : TICK_MS);
}

takeover.addEventListener('click', () => {
  if (dashboard) void app.request('ui/open-link', { url: dashboard });
});

void app.connect({ name: 'vmhub lease view', version: '1' }).then(() => { document.body.dataset.connected = 'true'; }, (err: Error) => { note.textContent = `The host did not answer: ${err.message}`; });
