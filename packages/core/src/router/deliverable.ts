/**
 * Input that validates against a tool's schema but cannot be delivered whole is refused before
 * anything runs, so a call never acts halfway: a NUL at character 300 of vm_type used to type the
 * first 256 characters and then fail (a newline among them would have run a command).
 *
 * - argv, window names, keys, app names, URLs: no NUL (no OS passes it in argv) and no other C0
 *   control characters except where the field is text;
 * - typed text: no NUL and no control characters a keyboard cannot type (newline, tab and
 *   carriage return are keys: Return, Tab);
 * - pasted text: no NUL (clipboards and toolkits cut text at it).
 * File contents and stdin are bytes and are not checked.
 */
import { VmhubError } from '../errors.ts';
import type { ToolName } from '../tools.ts';

// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const UNTYPEABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const NUL = /\u0000/;

function refuse(field: string, value: string, rule: RegExp, what: string): void {
  const m = rule.exec(value);
  if (!m) return;
  const code = m[0].codePointAt(0)!.toString(16).padStart(4, '0');
  throw new VmhubError('INVALID_REQUEST', `${field} contains U+${code} at character ${m.index}: ${what}; nothing was done`);
}

const ARGV = 'argv cannot carry it';

export function assertDeliverable(tool: ToolName, input: Record<string, unknown>): void {
  const str = (k: string) => (typeof input[k] === 'string' ? input[k] as string : undefined);
  switch (tool) {
    case 'vm_type': refuse('text', str('text')!, UNTYPEABLE, 'a keyboard cannot type it (newline, tab and carriage return are the only control characters typed)'); break;
    case 'vm_paste': refuse('text', str('text')!, NUL, 'clipboards end text at NUL'); break;
    case 'vm_key': refuse('keys', str('keys')!, ANY_CONTROL, 'key names are printable'); break;
    case 'vm_focus':
    case 'vm_close': refuse('window', str('window')!, ANY_CONTROL, 'window titles to match are printable'); break;
    case 'vm_launch':
      refuse('app', str('app')!, ANY_CONTROL, ARGV);
      (input.args as string[] | undefined)?.forEach((a, i) => refuse(`args[${i}]`, a, NUL, ARGV));
      break;
    case 'vm_exec':
      (input.command as string[] | undefined)?.forEach((a, i) => refuse(`command[${i}]`, a, NUL, ARGV));
      if (str('shell') !== undefined) refuse('shell', str('shell')!, NUL, ARGV);
      break;
    case 'vm_clone_repo':
      refuse('url', str('url')!, ANY_CONTROL, 'URLs are printable');
      if (str('ref') !== undefined) refuse('ref', str('ref')!, ANY_CONTROL, 'git refs are printable');
      break;
    case 'vm_dispatch': refuse('verb', str('verb')!, ANY_CONTROL, 'verb names are printable'); break;
    default: break;
  }
}
