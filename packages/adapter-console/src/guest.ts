/**
 * The provider's GuestChannel, for the capabilities the console cannot carry (files, exec,
 * clone). A template without one answers CAPABILITY_UNAVAILABLE with the reason, not a pretence.
 */
import { VmhubError, type AdapterContext, type GuestChannel } from '@vmhub/core';

export const SOURCE = 'adapter-console';
export const NO_CHANNEL_REASON = 'this template has no guest agent channel';

export async function guestChannel(ctx: AdapterContext): Promise<GuestChannel> {
  try {
    return await ctx.channel();
  } catch (err) {
    if (VmhubError.is(err) && err.code === 'CAPABILITY_UNAVAILABLE') {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${NO_CHANNEL_REASON} (${err.message}); the screen, keyboard and mouse still work: type the command with vm_type + vm_key Return`, { source: SOURCE, cause: err });
    }
    throw err;
  }
}
