// The whole conformance run for this adapter, on a REAL desktop: a debian-x11 container made by
// @vmhub/provider-docker, driven through the real tool router as an agent would drive it.
// Declared capabilities get behaviour checks; the others must answer CAPABILITY_UNAVAILABLE.
//
// Needs Docker and the debian-x11 golden image (`npx vmhub-server golden build debian-x11`).
// Without them every check FAILS with the reason: a desktop adapter untested is not skipped.
// Run: node --test test/conformance.test.ts
import { setTimeout as sleep } from 'node:timers/promises';
import { providerTarget, runAdapterConformance } from '@vmhub/conformance';
import dockerProvider, { debianX11Template } from '@vmhub/provider-docker';
import exampleAdapter from '../src/index.ts';

// The golden's own template, pointed at this adapter instead of x11.
const template = { ...debianX11Template, id: 'debian-x11-example', adapter: exampleAdapter.id };
const TYPED = '/tmp/vmhub-typed.txt';

runAdapterConformance({
  plugin: exampleAdapter,
  setupTimeoutMs: 300_000,
  async target() {
    // A machine and its LeaseContext, as the server makes them; dispose() destroys the machine.
    const target = await providerTarget({ plugin: dockerProvider, template });
    try {
      const channel = await target.context.channel();
      const sh = async (script: string) => {
        const r = await channel.exec(['sh', '-c', script], { env: { DISPLAY: ':0' }, timeoutMs: 30_000 });
        if (r.exit_code !== 0) throw new Error(`guest: ${script.slice(0, 80)}… exited ${r.exit_code}: ${r.stderr.toString()}`);
        return r.stdout.toString('utf8');
      };
      // The window the suite types into: a full-screen xterm whose `cat` writes every key it gets
      // to a file, so the type check reads back what really arrived.
      await sh(`: > ${TYPED}; setsid xterm -T vmhub-sink -geometry 210x62+0+0 -e sh -c 'stty -icanon -echo; exec cat > ${TYPED}' </dev/null >/dev/null 2>&1 &
        xdotool search --sync --name '^vmhub-sink$' windowactivate --sync`);
      return {
        ...target,
        effects: {
          // The xterm writes asynchronously: read until two reads 150 ms apart agree.
          typedText: async () => {
            for (let last = await sh(`cat ${TYPED}`), i = 0; ; i++) {
              await sleep(150);
              const now = await sh(`cat ${TYPED}`);
              if (now === last || i === 20) return now;
              last = now;
            }
          },
          pointer: async () => {
            const out = await sh('xdotool getmouselocation --shell');
            return { x: Number(/^X=(\d+)/m.exec(out)?.[1]), y: Number(/^Y=(\d+)/m.exec(out)?.[1]) };
          },
        },
      };
    } catch (err) {
      await target.dispose();
      throw err;
    }
  },
});
