/**
 * Several "hosts" on one machine, for multi-host tests: each host is a network namespace joined
 * to the root namespace by a veth pair on its own /30 (root end 10.213.N.1, host end
 * 10.213.N.2). A process started in a host sees only its own loopback and that link, so it
 * reaches a PostgreSQL listening on the root ends (`startPostgres({ listen: net.gateways, allow:
 * [net.cidr] })`) over a real network path, and nothing else. The file system is shared (as a
 * cluster's shared storage is). Needs root and iproute2. destroy() removes every namespace and
 * link it made, and kills what still runs in them.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface Host {
  /** The namespace's name (`vmhub-<run>-h<N>`). */
  readonly name: string;
  /** This host's address on its link. */
  readonly ip: string;
  /** The root namespace's end of the link: where services on "the network" listen. */
  readonly gateway: string;
  /** Start a process inside this host (argv, never a shell). */
  spawn(argv: string[], options?: SpawnOptions): ChildProcess;
  /** Run a command inside this host and return its stdout. */
  exec(argv: string[], options?: { timeoutMs?: number; env?: NodeJS.ProcessEnv }): string;
  /** Cut this host off the network (link down) or bring it back. */
  setLink(up: boolean): void;
}

export interface Network {
  readonly hosts: readonly Host[];
  /** The root ends of every host's link. */
  readonly gateways: readonly string[];
  /** The addresses every host's traffic comes from. */
  readonly cidr: string;
  destroy(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');

export function createNetwork(count: number): Network {
  if (process.getuid?.() !== 0) throw new Error('[vmhub] [postgres-testing] network namespaces need root');
  const run = randomBytes(3).toString('hex');
  const made: { ns: string; veth: string }[] = [];
  const hosts: Host[] = [];
  const network: Network = {
    hosts,
    get gateways() { return hosts.map((h) => h.gateway); },
    cidr: '10.213.0.0/16',
    destroy() {
      for (const { ns, veth } of made) {
        // Whatever still runs in the namespace dies with it: kill it first, then remove.
        try { for (const pid of ip('netns', 'pids', ns).split('\n').filter(Boolean)) process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ }
        try { ip('link', 'del', veth); } catch { /* gone with the namespace */ }
        try { ip('netns', 'del', ns); } catch { /* gone */ }
      }
      made.length = 0;
    },
  };
  try {
    // Subnets are picked per run so two test files at once do not collide.
    const base = (parseInt(run, 16) % 60) * 4;
    for (let i = 0; i < count; i++) {
      const ns = `vmhub-${run}-h${i + 1}`;
      const veth = `vh${run}${i + 1}`;
      const peer = `vp${run}${i + 1}`;
      const third = base + i + 1;
      const gateway = `10.213.${third}.1`;
      const addr = `10.213.${third}.2`;
      ip('netns', 'add', ns);
      made.push({ ns, veth });
      ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', peer);
      ip('link', 'set', peer, 'netns', ns);
      ip('addr', 'add', `${gateway}/30`, 'dev', veth);
      ip('link', 'set', veth, 'up');
      ip('-n', ns, 'addr', 'add', `${addr}/30`, 'dev', peer);
      ip('-n', ns, 'link', 'set', peer, 'up');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      hosts.push({
        name: ns, ip: addr, gateway,
        spawn: (argv, options = {}) => spawn('ip', ['netns', 'exec', ns, ...argv], options),
        exec: (argv, options = {}) => execFileSync('ip', ['netns', 'exec', ns, ...argv], { timeout: options.timeoutMs ?? 30_000, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8'),
        setLink: (up) => { ip('link', 'set', veth, up ? 'up' : 'down'); },
      });
    }
  } catch (err) {
    network.destroy();
    throw err;
  }
  return network;
}
