/**
 * The conformance kit on the second path alone (vnc: "none", in_guest_tools): screen and input
 * through the stand-in screencapture/cliclick/osascript over a real sshd, windows through the
 * stand-in osascript, launch through the stand-in open — all backed by a live X desktop.
 */
import { runAdapterConformance } from '@vmhub/conformance';
import macos from '../src/index.ts';
import { hostTarget } from './host-target.ts';
import { EXEC_COMMANDS } from './skips.ts';

runAdapterConformance({
  plugin: macos,
  name: 'host, in-guest tools only',
  launchApp: 'xterm',
  timeoutMs: 60_000,
  setupTimeoutMs: 120_000,
  exec: EXEC_COMMANDS,
  target: () => hostTarget({ adapterOptions: { vnc: 'none', in_guest_tools: true } }),
});
