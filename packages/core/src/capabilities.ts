/**
 * Capability ids: what a machine can do. An adapter declares the ones it serves; every VM-bound
 * tool maps to exactly one of them, and a tool whose capability the lease's adapter lacks answers
 * CAPABILITY_UNAVAILABLE.
 */
export const CAPABILITIES = [
  'screenshot',
  'inspect',
  'list_windows',
  'focus',
  'close',
  'launch',
  'click',
  'type',
  'key',
  'key_hold',
  'paste',
  'get_clipboard',
  'drag',
  'scroll',
  'dispatch',
  'put_file',
  'get_file',
  'clone_repo',
  'exec',
] as const;

export type Capability = (typeof CAPABILITIES)[number];

export function isCapability(value: unknown): value is Capability {
  return typeof value === 'string' && (CAPABILITIES as readonly string[]).includes(value);
}

/** The adapter method that serves each capability. */
export const CAPABILITY_METHOD = {
  screenshot: 'screenshot',
  inspect: 'inspect',
  list_windows: 'listWindows',
  focus: 'focus',
  close: 'close',
  launch: 'launch',
  click: 'click',
  type: 'type',
  key: 'key',
  // vm_key {action: "down" | "up"}: keys held across calls (shift-click, ctrl-drag), released by the
  // adapter when the session ends or a person takes over (AdapterSession.releaseHeld).
  key_hold: 'keyHold',
  paste: 'paste',
  // vm_get_clipboard: the guest clipboard as text.
  get_clipboard: 'getClipboard',
  drag: 'drag',
  scroll: 'scroll',
  dispatch: 'dispatch',
  put_file: 'putFile',
  get_file: 'getFile',
  clone_repo: 'cloneRepo',
  exec: 'exec',
} as const satisfies Record<Capability, string>;

export type CapabilityMethod = (typeof CAPABILITY_METHOD)[Capability];

/**
 * What the lease's provider does to the machine itself, beside the adapter's capabilities:
 * restart it in place (vm_lease_restart), say what it uses (vm_lease_status {stats: true}) and
 * show its own log (vm_logs {source: "console"}). vm_capabilities lists the ones a template's
 * provider offers among `capabilities` and the others in `unavailable` with the reason; the tool
 * of one the provider lacks answers CAPABILITY_UNAVAILABLE with that reason. (Snapshots are the
 * provider's too, reported apart with their `memory` flag.)
 */
export const MACHINE_CAPABILITIES = ['restart', 'stats', 'logs'] as const;

export type MachineCapability = (typeof MACHINE_CAPABILITIES)[number];
