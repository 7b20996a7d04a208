/**
 * The published conformance kit on this adapter, against a real Xvfb + openbox desktop on this
 * host through the host channel. A full-screen xterm running `cat` (non-canonical, no echo)
 * into a file is the target's "focused window": what is typed or pasted lands in that file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAdapterConformance } from '@vmhub/conformance';
import { createHostChannel } from '@vmhub/test-kit/host-channel';
import { until } from '@vmhub/test-kit';
import x11 from '../src/index.ts';
import { leaseContext } from './context.ts';
import { startXSession } from './x-session.ts';

runAdapterConformance({
  plugin: x11,
  launchApp: 'xterm',
  dispatch: [{ verb: 'mouse_location', args: {} }, { verb: 'get_clipboard', args: {} }],
  timeoutMs: 60_000,
  setupTimeoutMs: 120_000,
  async target() {
    const x = await startXSession();
    const channel = createHostChannel({ home: x.home, env: { HOME: x.home } });
    // The lease the kit opens its session on (the kit makes each call's signal itself).
    const context = leaseContext(channel, { display: x.display });
    const typed = join(x.home, 'typed.txt');
    const run = (argv: string[]) => execFileSync(argv[0]!, argv.slice(1), { env: { ...process.env, ...x.env }, timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
    x.spawnX(['xterm', '-T', 'conformance-sink', '-geometry', '210x60+0+0', '-e', 'sh', '-c', `stty -icanon -echo; exec cat > '${typed}'`]);
    await until(() => (existsSync(typed) && run(['wmctrl', '-l']).includes('conformance-sink') ? true : undefined), 'sink xterm', 20_000, 100);
    run(['wmctrl', '-a', 'conformance-sink']);
    return {
      context,
      // The suite creates the adapter before the target exists: the display reaches it through
      // the template's adapter_options, which the adapter applies when it opens the lease's session.
      dispose: async () => { await x.stop(); },
      effects: {
        typedText: async () => readFileSync(typed, 'utf8'),
        // XTerm pastes PRIMARY (shift+Insert), so that is the selection vm_paste must restore.
        clipboard: async () => { try { return run(['xclip', '-selection', 'primary', '-o']); } catch { return ''; } },
        pointer: async () => {
          const out = run(['xdotool', 'getmouselocation', '--shell']);
          return { x: Number(/^X=(\d+)/m.exec(out)?.[1]), y: Number(/^Y=(\d+)/m.exec(out)?.[1]) };
        },
      },
    };
  },
});
