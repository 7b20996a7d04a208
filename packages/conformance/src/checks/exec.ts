/** exec and dispatch. */
import { randomBytes } from 'node:crypto';
import { check, expectError, expectOk } from '../expect.ts';
import type { CheckTable } from './env.ts';

async function waitFor(done: () => boolean, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !done() && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 25));
}

export const EXEC_CHECKS: CheckTable = {
  exec: [
    {
      name: 'runs argv and returns stdout with exit 0',
      async run(env) {
        const s = expectOk(await env.conn.call('vm_exec', { command: env.exec.echo }), `vm_exec ${JSON.stringify(env.exec.echo)}`, 'exec() must run argv[0] with argv[1..] (no shell) and return exit_code, stdout, stderr');
        check(s.exit_code === 0, `exit_code ${String(s.exit_code)} (stderr ${JSON.stringify(s.stderr)})`, 'return the process\'s exit status');
        check(String(s.stdout).trim() === 'vmhub-conformance', `stdout ${JSON.stringify(s.stdout)}`, 'return the process\'s stdout, unmodified');
      },
    },
    {
      name: 'vm_exec {shell} runs the string in the machine\'s shell',
      async run(env) {
        const word = `vmhubshell${randomBytes(4).toString('hex')}`;
        const s = expectOk(await env.conn.call('vm_exec', { shell: `echo ${word}` }), `vm_exec {shell: "echo ${word}"}`, 'vm_exec {shell} runs the argv the session\'s shellArgv(command) gives, by default [\'/bin/sh\', \'-c\', command]: where the machine has no /bin/sh, implement shellArgv');
        check(s.exit_code === 0 && String(s.stdout).includes(word), `exit_code ${String(s.exit_code)}, stdout ${JSON.stringify(s.stdout)}, stderr ${JSON.stringify(s.stderr)}`, 'return from shellArgv(command) the argv of this machine\'s shell running command (Windows: PowerShell; Android: /system/bin/sh -c), or leave it out where /bin/sh -c works');
      },
    },
    {
      name: 'reports a non-zero exit and stderr',
      async run(env) {
        const s = expectOk(await env.conn.call('vm_exec', { command: env.exec.fail }), `vm_exec ${JSON.stringify(env.exec.fail)}`, 'a failing command is a result, not an error: return its exit_code and stderr');
        check(s.exit_code === 3, `exit_code ${String(s.exit_code)}, expected 3`, 'return the process\'s own exit status');
        check(String(s.stderr).includes('vmhub-conformance-err'), `stderr ${JSON.stringify(s.stderr)}`, 'return stderr separately from stdout');
      },
    },
    {
      name: 'honours timeout_seconds (timed_out, exit_code null)',
      async run(env, t) {
        if (!env.exec.sleep) { t.skip('exec.sleep is null: no long-running command given for this target'); return; }
        const started = Date.now();
        const s = expectOk(await env.conn.call('vm_exec', { command: env.exec.sleep, timeout_seconds: 1 }), `vm_exec ${JSON.stringify(env.exec.sleep)} with timeout_seconds 1`, 'kill the command when timeout_ms passes and return {timed_out: true, exit_code: null}');
        check(s.timed_out === true && s.exit_code === null, `timed_out ${String(s.timed_out)}, exit_code ${String(s.exit_code)}`, 'when timeout_ms passes, kill the process and return timed_out: true with exit_code: null');
        check(Date.now() - started < 4500, `vm_exec took ${Date.now() - started} ms with a 1 s timeout`, 'stop waiting at timeout_ms');
      },
    },
    {
      name: 'a cancelled vm_exec reaches the channel: the call\'s signal is passed and aborts',
      async run(env, t) {
        if (!env.exec.sleep) { t.skip('exec.sleep is null: no long-running command given for this target'); return; }
        const from = env.conn.execs.length;
        const reached = () => env.conn.execs.slice(from).find((e) => e.argv.join(' ') === env.exec.sleep!.join(' '));
        const ctl = new AbortController();
        const call = env.conn.client.callTool({ name: 'vm_exec', arguments: { lease_id: env.conn.leaseId, command: env.exec.sleep, timeout_seconds: 30 } }, { signal: ctl.signal });
        call.catch(() => undefined);
        await waitFor(() => reached() !== undefined, 10_000);
        const seen = reached();
        check(seen, `vm_exec ${JSON.stringify(env.exec.sleep)} never reached GuestChannel.exec`, 'run vm_exec through ctx.channel().exec');
        ctl.abort();
        await call.then(() => undefined, () => undefined);
        check(seen.signal, 'vm_exec called GuestChannel.exec without options.signal', 'pass signal: ctx.signal to every GuestChannel.exec, so a cancelled call stops in the guest');
        await waitFor(() => seen.signal!.aborted && seen.settledAt !== undefined, 10_000);
        check(seen.signal.aborted, 'the signal passed to GuestChannel.exec did not abort when the client cancelled the call', 'pass ctx.signal itself (the router aborts it on cancellation and at the deadline), not a signal of your own');
        check(seen.settledAt !== undefined, 'GuestChannel.exec did not settle within 10 s of the cancellation', 'a channel must kill the command when options.signal aborts and resolve promptly');
      },
    },
    {
      name: 'runs in cwd',
      async run(env) {
        const s = expectOk(await env.conn.call('vm_exec', { command: env.exec.pwd, cwd: env.exec.cwd }), `vm_exec ${JSON.stringify(env.exec.pwd)} with cwd "${env.exec.cwd}"`, 'start the process in input.cwd');
        check(String(s.stdout).trim() === env.exec.cwd, `stdout ${JSON.stringify(s.stdout)} with cwd "${env.exec.cwd}"`, 'pass input.cwd to the channel (ExecOptions.cwd)');
      },
    },
    {
      name: 'passes stdin',
      async run(env) {
        const s = expectOk(await env.conn.call('vm_exec', { command: env.exec.cat, stdin: 'vmhub stdin\n' }), `vm_exec ${JSON.stringify(env.exec.cat)} with stdin`, 'write stdin to the process, then close it');
        check(s.stdout === 'vmhub stdin\n', `stdout ${JSON.stringify(s.stdout)} for stdin "vmhub stdin\\n"`, 'pass input.stdin to the process\'s stdin and close it');
      },
    },
  ],
  dispatch: [
    {
      name: 'an unknown verb answers INVALID_REQUEST',
      async run(env) {
        expectError(await env.conn.call('vm_dispatch', { verb: 'vmhub_conformance_no_such_verb', args: {} }), 'INVALID_REQUEST', 'vm_dispatch of an unknown verb', 'defineAdapter rejects unknown verbs itself: declare verbs in the spec rather than dispatching by hand');
      },
    },
    {
      name: 'every declared verb has a description',
      async run(env) {
        check(env.plugin.verbs.length > 0, 'dispatch is declared but no verb is', 'declare verbs: {name: {description, args, run}} in defineAdapter');
        for (const v of env.plugin.verbs) check(v.description.length > 0, `verb "${v.verb}" has no description`, 'describe each verb: agents read it in vm_capabilities');
      },
    },
    {
      name: 'sample verb calls succeed',
      async run(env, t) {
        if (env.dispatch.length === 0) { t.skip('no dispatch samples given: pass dispatch: [{verb, args}] to runAdapterConformance'); return; }
        for (const d of env.dispatch) {
          const s = expectOk(await env.conn.call('vm_dispatch', d), `vm_dispatch ${d.verb}`, `verb "${d.verb}" must run with args ${JSON.stringify(d.args)}`);
          check(s.verb === d.verb, `vm_dispatch answered verb ${String(s.verb)}`, 'the router echoes the verb; return the verb\'s result');
        }
      },
    },
  ],
};
