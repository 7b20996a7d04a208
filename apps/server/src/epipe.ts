/**
 * The CLI commands print for people and pipes (`vmhub-server golden status | head`). When the
 * reader closes the pipe early, the next write fails with EPIPE, which Node raises as an
 * unhandled 'error' event: a stack trace for what is normal for a Unix tool. A command exits 0,
 * silently, instead. Not for the servers: on stdio, stdout is the MCP transport, whose end the
 * server handles itself (a stop, with its leases settled).
 */
export function exitQuietlyOnEpipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
