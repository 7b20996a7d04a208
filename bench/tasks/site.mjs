// The tasks' web site (site/server.py) put into a lease and started there, on 127.0.0.1:8765.
import { readFileSync } from 'node:fs';

const SERVER = readFileSync(new URL('./site/server.py', import.meta.url), 'utf8');
export const SITE = 'http://127.0.0.1:8765';
export const SITE_LOG = '/home/user/site/log.txt';

/** Put the server into the lease, start it detached, and wait until it answers. */
export async function startSite(m) {
  await m.put('/home/user/site/server.py', SERVER);
  await m.sh('cd /home/user/site && : > log.txt && (setsid python3 server.py 8765 >/dev/null 2>&1 &) && for i in $(seq 1 50); do python3 -c "import urllib.request; urllib.request.urlopen(\'http://127.0.0.1:8765/quote\')" 2>/dev/null && exit 0; sleep 0.1; done; exit 1');
  await m.sh(': > /home/user/site/log.txt');
}

/** The requests the site logged. */
export async function siteLog(m) {
  const text = (await m.read(SITE_LOG)) ?? '';
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}
