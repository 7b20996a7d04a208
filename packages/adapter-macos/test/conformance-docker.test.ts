/**
 * The conformance kit on the macos-standin golden through @vmhub/provider-docker (a real
 * container): VNC through the container's ARD stand-in (RFB 003.889, type 30) in front of x11vnc,
 * SSH to its sshd, the stand-in in-guest tools — all reached through the provider's guest ports
 * (Provider.connect), as in production. Effects are read inside the container through the
 * provider's channel, which the adapter itself never uses. Needs the golden
 * (`vmhub-server golden build macos-standin`): without it the suite FAILS with the reason.
 */
import { randomBytes } from 'node:crypto';
import { providerTarget, runAdapterConformance } from '@vmhub/conformance';
import dockerProvider from '@vmhub/provider-docker';
import macos from '../src/index.ts';
import { EXEC_COMMANDS } from './skips.ts';

const template = dockerProvider.templates.find((t) => t.id === 'macos-standin');
const X = { DISPLAY: ':0', LC_ALL: 'C.UTF-8' };

runAdapterConformance({
  plugin: macos,
  name: 'docker macos-standin',
  launchApp: 'xterm',
  timeoutMs: 60_000,
  setupTimeoutMs: 240_000,
  exec: EXEC_COMMANDS,
  async target() {
    if (!template) throw new Error('provider-docker offers no macos-standin template: is standins/goldens/macos-standin/template.json there (pnpm install links @vmhub/standin-goldens)?');
    const target = await providerTarget({ plugin: dockerProvider, template, timeoutMs: 180_000, instance: `test-macos-${randomBytes(3).toString('hex')}` });
    const ch = await target.context.channel();
    const sh = (script: string) => ch.exec(['sh', '-c', script], { env: X, timeoutMs: 10_000 });
    await sh("setsid xterm -T vmhub-sink -geometry 150x45+0+0 -e sh -c 'stty -icanon -echo; exec cat > /tmp/typed.txt' >/dev/null 2>&1 < /dev/null &");
    const deadline = Date.now() + 20_000;
    while ((await sh('test -f /tmp/typed.txt && wmctrl -l | grep -q vmhub-sink')).exit_code !== 0) {
      if (Date.now() > deadline) throw new Error('the sink xterm did not come up in the container');
      await new Promise((r) => setTimeout(r, 200));
    }
    await sh('wmctrl -a vmhub-sink');
    return {
      context: target.context,
      dispose: () => target.dispose(),
      effects: {
        typedText: async () => (await ch.getFile('/tmp/typed.txt')).toString('utf8'),
        pointer: async () => {
          const out = (await ch.exec(['xdotool', 'getmouselocation', '--shell'], { env: X })).stdout.toString();
          return { x: Number(/^X=(\d+)/m.exec(out)?.[1]), y: Number(/^Y=(\d+)/m.exec(out)?.[1]) };
        },
      },
    };
  },
});
