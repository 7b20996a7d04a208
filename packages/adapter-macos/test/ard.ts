/** The RFB engineer's ARD stand-in (@vmhub/ard-standin) in front of a test x11vnc. */
import { startArdStandin } from '@vmhub/ard-standin';
import { freePort } from '@vmhub/test-kit';

export const ARD_USER = 'vmhub';
export const ARD_PASSWORD = 'ard-secret';

export async function startArd(upstreamPort: number): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const server = await startArdStandin({ listen: { host: '127.0.0.1', port }, upstream: { host: '127.0.0.1', port: upstreamPort }, username: ARD_USER, password: ARD_PASSWORD, log: () => undefined });
  return { port, stop: () => new Promise<void>((resolve) => { server.close(() => resolve()); (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.(); }) };
}
