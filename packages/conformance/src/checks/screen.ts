/** screenshot and inspect. */
import sharp from 'sharp';
import { check, expectError, expectOk, imageOf } from '../expect.ts';
import type { CheckTable } from './env.ts';

export const SCREEN_CHECKS: CheckTable = {
  screenshot: [
    {
      name: 'returns an image that decodes to the reported width and height',
      async run(env) {
        const r = await env.conn.call('vm_screenshot', {});
        const s = expectOk(r, 'vm_screenshot', 'screenshot() must return a RawScreen {data, format, width, height} of the whole screen');
        const image = imageOf(r);
        check(image, 'vm_screenshot returned no image content', 'return the frame from screenshot(); the router encodes it');
        const meta = await sharp(image.data).metadata().catch((err: Error) => { check(false, `the screenshot image does not decode: ${err.message}`, 'return data in the format you declare in RawScreen.format (png, jpeg, ppm, rgba, rgb, webp)'); });
        check(meta!.width === s.width && meta!.height === s.height, `image is ${meta!.width}x${meta!.height} but the result says ${String(s.width)}x${String(s.height)}`, 'RawScreen.width/height must be the pixel size of data');
        const screen = s.screen as { width: number; height: number };
        check(screen.width > 0 && screen.height > 0, `screen size ${screen.width}x${screen.height}`, 'report the real screen size in RawScreen.width/height');
        env.screen = screen;
      },
    },
    {
      name: 'honours max_width (downscaled, scale below 1)',
      async run(env) {
        const s = expectOk(await env.conn.call('vm_screenshot', { max_width: 160, max_height: 160 }), 'vm_screenshot {max_width: 160}', 'screenshot() must return the full frame; core scales it');
        check((s.width as number) <= 160 && (s.height as number) <= 160, `image is ${String(s.width)}x${String(s.height)}, over the 160 px box`, 'return the full frame from screenshot(); do not scale yourself');
        // Leave a full-size mapping behind for the input checks that follow.
        await env.conn.call('vm_screenshot', {});
      },
    },
  ],
  inspect: [
    {
      name: 'returns an element tree, or CAPABILITY_UNAVAILABLE with a reason',
      async run(env, t) {
        const r = await env.conn.call('vm_inspect', { max_depth: 4 });
        if (r.isError) {
          const e = expectError(r, 'CAPABILITY_UNAVAILABLE', 'vm_inspect', 'inspect() must return {source, tree} or throw CAPABILITY_UNAVAILABLE explaining what the machine lacks');
          check(e.message.length > 10, `vm_inspect answered CAPABILITY_UNAVAILABLE without a reason: "${e.message}"`, 'say what is missing and how to get it (e.g. "AT-SPI is not running in the guest: install at-spi2-core")');
          t.diagnostic(`inspect unavailable on this target: ${e.message}`);
          return;
        }
        const s = expectOk(r, 'vm_inspect', 'return {source, tree}');
        const tree = s.tree as { role?: unknown } | undefined;
        check(typeof s.source === 'string' && (s.source as string).length > 0, 'vm_inspect returned no source', 'name where the tree came from (e.g. "atspi", "uia", "ocr")');
        check(tree && typeof tree.role === 'string', `vm_inspect tree root has no role: ${JSON.stringify(tree)?.slice(0, 200)}`, 'return an ElementNode {role, name?, x?, y?, width?, height?, children?}');
      },
    },
  ],
};
