/**
 * The kit's exec commands for this adapter. Commands run over the adapter's own SSH link, never
 * the provider's GuestChannel, so the kit's checks that watch GuestChannel.exec (cancellation,
 * and with it the timeout check, both driven by `sleep`) cannot see them: `sleep: null` skips
 * those two. test/ssh.test.ts covers timeouts and cancellation that kill the remote process group
 * on a real sshd. The other exec checks (argv, `shell`, exit code and stderr, cwd, stdin) run.
 */
export const EXEC_COMMANDS = { sleep: null };
