/**
 * A QEMU template with a disk for the real-engine tests that need one (restart-qemu, stats-logs):
 * tiny-console-agent's kernel and initramfs booting with a blank qcow2 as the golden, so each
 * lease gets its own overlay (/dev/vda in the guest, no filesystem: tests write blocks with dd).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tinyConsoleAgentTemplate } from '@vmhub/provider-qemu';

/** Template `tiny-disk`, its blank 64 MiB golden made in `dir`. */
export async function diskTemplate(dir: string) {
  const agent = tinyConsoleAgentTemplate();
  const golden = join(dir, 'blank.qcow2');
  await promisify(execFile)('qemu-img', ['create', '-q', '-f', 'qcow2', golden, '64M']);
  return { ...agent, id: 'tiny-disk', golden, provider_options: { ...agent.provider_options, kernel: agent.golden } };
}
