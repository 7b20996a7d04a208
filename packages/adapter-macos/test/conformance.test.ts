/**
 * The conformance kit on the whole adapter on this host: VNC through the ARD stand-in (RFB
 * 003.889, type 30) in front of x11vnc over a live X desktop, SSH to a real sshd, and the in-guest
 * tools (stand-ins) for the window capabilities. test/conformance-docker.test.ts runs the kit on
 * the macos-standin golden through provider-docker.
 */
import { runAdapterConformance } from '@vmhub/conformance';
import macos from '../src/index.ts';
import { ARD_PASSWORD, ARD_USER, startArd } from './ard.ts';
import { EXEC_COMMANDS } from './skips.ts';
import { hostTarget } from './host-target.ts';

runAdapterConformance({
  plugin: macos,
  name: 'host, VNC + SSH',
  launchApp: 'xterm',
  timeoutMs: 60_000,
  setupTimeoutMs: 120_000,
  exec: EXEC_COMMANDS,
  target: () => hostTarget({
    adapterOptions: { in_guest_tools: true, vnc_username: ARD_USER, vnc_password: ARD_PASSWORD },
    front: (desk) => startArd(desk.vncPort),
  }),
});
