/**
 * The kit's exec checks watch GuestChannel.exec; this adapter runs commands over its own SSH
 * connection, never the provider's channel, so they cannot see it. test/ssh.test.ts covers exec
 * on a real sshd instead: argv, exit codes, stderr, cwd, stdin, caps, and timeouts and
 * cancellation that kill the remote process group.
 */
export const EXEC_SKIP = { exec: 'exec runs over the adapter\'s own SSH link, not GuestChannel.exec, which the kit watches: covered by test/ssh.test.ts' };
