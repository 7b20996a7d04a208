/**
 * Hyprland's request socket, `$XDG_RUNTIME_DIR/hypr/<signature>/.socket.sock`, spoken raw (no
 * hyprctl needed): connect, write one request (`[flags]/command args`, `j/` = JSON), read until
 * the compositor closes. Hyprland serves the socket synchronously — an idle connection stalls it —
 * so it is one connection per request, closed at once. Hyprland reads a request in 1023-byte
 * reads until one comes back short; requests here stay under 8 KiB as hyprctl's users do. The client is a few lines of python3 (perl as fallback), run in the guest
 * over the channel; several requests in one guest command come back length-framed.
 *
 * Dispatchers exist in two incompatible syntaxes, picked per instance from `j/version`:
 * hyprlang (≤ 0.54: `dispatch focuswindow address:0x…`) and Lua (≥ 0.55 with a Lua config:
 * `dispatch hl.dsp.focus({ window = "address:0x…" })`). A 0.55 still running a hyprlang config
 * answers the old syntax, so a refused dispatch is retried once in the other syntax and the one
 * that worked is kept for the session.
 */
import { hyprError } from './errors.ts';
import type { Guest } from './guest.ts';

export type DispatchSyntax = 'hyprlang' | 'lua';

const PY_CLIENT = String.raw`
import os, socket, sys
path = os.path.join(os.environ["XDG_RUNTIME_DIR"], "hypr", os.environ["HYPRLAND_INSTANCE_SIGNATURE"], ".socket.sock")
for req in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(path)
    except OSError as e:
        sys.stderr.write("cannot connect to %s: %s\n" % (path, e)); sys.exit(75)
    s.sendall(req.encode())
    out = b""
    while True:
        c = s.recv(65536)
        if not c: break
        out += c
    s.close()
    sys.stdout.buffer.write(b"%d\n" % len(out) + out)
`;

const PL_CLIENT = String.raw`
use Socket;
my $path = "$ENV{XDG_RUNTIME_DIR}/hypr/$ENV{HYPRLAND_INSTANCE_SIGNATURE}/.socket.sock";
binmode STDOUT;
for my $req (@ARGV) {
  socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n";
  connect($s, pack_sockaddr_un($path)) or do { print STDERR "cannot connect to $path: $!\n"; exit 75 };
  binmode $s; syswrite($s, $req);
  my ($out, $buf) = ('', '');
  while (sysread($s, $buf, 65536)) { $out .= $buf }
  close $s;
  print length($out), "\n", $out;
}
`;

const CLIENT_SCRIPT = String.raw`
py=$1; pl=$2; shift 2
if command -v python3 >/dev/null 2>&1; then exec python3 -c "$py" "$@"; fi
if command -v perl >/dev/null 2>&1; then exec perl -e "$pl" "$@"; fi
echo "python3: not found" >&2; exit 127
`;

/** Longest request sent (Hyprland itself reads any length, 1023 bytes at a time). */
export const MAX_REQUEST_BYTES = 8192;

/** Send requests in order (one connection each) and return each reply. */
export async function hyprRequests(guest: Guest, requests: string[], label = 'Hyprland IPC'): Promise<string[]> {
  for (const r of requests) {
    if (Buffer.byteLength(r) > MAX_REQUEST_BYTES) throw hyprError('INVALID_REQUEST', `Hyprland IPC request is ${Buffer.byteLength(r)} bytes, over the ${MAX_REQUEST_BYTES}-byte limit of this adapter`);
  }
  const res = await guest.sh(CLIENT_SCRIPT, [PY_CLIENT, PL_CLIENT, ...requests], { label, okCodes: [0, 75] });
  if (res.exit_code === 75) {
    throw hyprError('INTERNAL', `the Hyprland socket does not answer: ${res.stderr.toString('utf8').trim()}; is Hyprland (or its IPC stand-in) running?`, {
      hint: 'The desktop is not up: wait with vm_lease_status or release and recreate the lease.',
    });
  }
  return parseFramed(res.stdout);
}

export async function hyprRequest(guest: Guest, request: string): Promise<string> {
  return (await hyprRequests(guest, [request]))[0] ?? '';
}

export function parseFramed(out: Buffer): string[] {
  const replies: string[] = [];
  let pos = 0;
  while (pos < out.length) {
    const nl = out.indexOf(0x0a, pos);
    if (nl < 0) break;
    const len = Number(out.subarray(pos, nl).toString('latin1'));
    if (!Number.isInteger(len) || len < 0) throw hyprError('INTERNAL', 'the Hyprland IPC client printed an unframed reply');
    replies.push(out.subarray(nl + 1, nl + 1 + len).toString('utf8'));
    pos = nl + 1 + len;
  }
  return replies;
}

export function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw hyprError('INTERNAL', `Hyprland answered ${what} with something that is not JSON: ${text.slice(0, 200)}`, { cause: err });
  }
}

/** The Hyprland version (e.g. 0.41.2) from `j/version`: `version` (newer releases), else `tag` (v0.41.2-…). */
export function versionOf(v: { version?: string; tag?: string }): string {
  if (v.version && /^\d+\.\d+/.test(v.version)) return v.version;
  const m = /(\d+\.\d+(?:\.\d+)?)/.exec(v.tag ?? '');
  // No version at all: treat it as the oldest (hyprlang); a refused dispatch still falls back.
  return m ? m[1]! : ['0', '0', '0'].join('.');
}

/** Lua dispatchers from 0.55 on (hyprwm/Hyprland v0.55.0 moved the config to Lua). */
export function syntaxFor(version: string): DispatchSyntax {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 0 || minor >= 55 ? 'lua' : 'hyprlang';
}

/** A Lua string literal that is safe for any input: every byte outside [A-Za-z0-9 ._/-] as \ddd. */
export function luaString(text: string): string {
  let out = '"';
  for (const b of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9 ._/:-]/.test(c) ? c : `\\${b.toString().padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** One dispatcher action in both syntaxes. Addresses are 0x + hex (checked by the caller). */
export type Action =
  | { kind: 'focus'; address: string }
  | { kind: 'close'; address: string }
  | { kind: 'exec'; command: string }
  | { kind: 'movecursor'; x: number; y: number };

export function dispatchRequest(action: Action, syntax: DispatchSyntax): string {
  if (syntax === 'hyprlang') {
    switch (action.kind) {
      case 'focus': return `dispatch focuswindow address:${action.address}`;
      case 'close': return `dispatch closewindow address:${action.address}`;
      case 'exec': return `dispatch exec ${action.command}`;
      case 'movecursor': return `dispatch movecursor ${action.x} ${action.y}`;
    }
  }
  switch (action.kind) {
    case 'focus': return `dispatch hl.dsp.focus({ window = "address:${action.address}" })`;
    case 'close': return `dispatch hl.dsp.window.close({ window = "address:${action.address}" })`;
    case 'exec': return `dispatch hl.dsp.exec_cmd(${luaString(action.command)})`;
    case 'movecursor': return `dispatch hl.dsp.cursor.move({ x = ${action.x}, y = ${action.y} })`;
  }
}

/** Hyprland answers a dispatch it ran with "ok" (Lua: "ok" or the value of hl.dispatch). */
export function dispatchOk(reply: string): boolean {
  return reply.trim().startsWith('ok');
}

/**
 * Run one action with the instance's syntax; a refusal is retried once in the other syntax (a
 * 0.55 with a hyprlang config, or a build whose version string misleads), and the syntax that
 * worked is returned for the session to keep.
 */
export async function dispatch(guest: Guest, action: Action, syntax: DispatchSyntax): Promise<DispatchSyntax> {
  const first = await hyprRequest(guest, dispatchRequest(action, syntax));
  if (dispatchOk(first)) return syntax;
  const other: DispatchSyntax = syntax === 'lua' ? 'hyprlang' : 'lua';
  const second = await hyprRequest(guest, dispatchRequest(action, other));
  if (dispatchOk(second)) return other;
  throw hyprError('INTERNAL', `Hyprland refused dispatch ${action.kind} in both syntaxes: ${first.trim().slice(0, 200)} / ${second.trim().slice(0, 200)}`);
}
