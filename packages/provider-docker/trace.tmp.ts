import { randomUUID } from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import dockerProvider, { DockerClient } from './src/index.ts';
const run = promisify(execFile);
const template = dockerProvider.templates[0]!;
const instance = `t${randomUUID().slice(0, 8)}`;
const context = { instance, identityPrefix: `vmhub-${instance}-`, log: () => {} } as any;
const provider = dockerProvider.create({}, context);
const N = Number(process.env.N ?? 7);
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
const rows: Record<string, number[]> = {};
const add = (k: string, v: number) => (rows[k] ??= []).push(v);
const golden = template.golden;
async function floor(i: number) {
  const c = `vmhub-trace-floor-${process.pid}-${i}`;
  const t = performance.now();
  await run('docker', ['run', '-d', '--network', 'none', '--name', c, '-e', 'VMHUB_SCREEN=1280x800x24', golden]);
  add('floor.run', performance.now() - t);
  await new Promise<void>((res) => {
    const p = spawn('docker', ['exec', '-u', 'user', '-e', 'DISPLAY=:0', c, 'sh', '-c', 'until wmctrl -m >/dev/null 2>&1; do sleep 0.01; done; echo wm'], { stdio: ['ignore', 'pipe', 'inherit'] });
    p.stdout.on('data', () => {}); p.on('close', () => res());
  });
  add('floor.wm', performance.now() - t);
  await run('docker', ['rm', '-f', c]);
}
async function vm(i: number) {
  const lease = `l${i}${randomUUID().slice(0, 6)}`;
  const identity = `${context.identityPrefix}${lease}`;
  const t = performance.now();
  const marks: string[] = [];
  const m = await provider.create({ lease_id: lease, identity, template, signal: AbortSignal.timeout(60000) });
  add('vm.create', performance.now() - t);
  await provider.ready(m, { signal: AbortSignal.timeout(60000), template, stage: (n: string, s: string) => { add(`vm.${n}.${s}`, performance.now() - t); } } as any);
  add('vm.ready', performance.now() - t);
  await provider.destroy(m);
}
await vm(99); // warm
for (let i = 0; i < N; i++) { await floor(i); await vm(i); }
for (const [k, v] of Object.entries(rows)) console.log(k.padEnd(28), med(v), v.map((x) => x.toFixed(0)).join(' '));
await provider.close();
