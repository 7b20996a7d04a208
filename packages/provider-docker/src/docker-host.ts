/**
 * Where the Docker daemon listens: explicit option, else DOCKER_HOST, else the default socket.
 * unix:///path and tcp://host:port are understood; TLS (DOCKER_TLS_VERIFY) is not, so a remote
 * daemon should be reached through an SSH-forwarded socket instead.
 */
import { VmhubError } from '@vmhub/core';

export const DEFAULT_SOCKET = '/var/run/docker.sock';

export interface DockerEndpoint {
  socketPath?: string;
  host?: string;
  port?: number;
}

export function parseDockerHost(value: string | undefined = process.env.DOCKER_HOST): DockerEndpoint {
  const host = (value ?? '').trim();
  if (host === '') return { socketPath: DEFAULT_SOCKET };
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) || DEFAULT_SOCKET };
  if (host.startsWith('/')) return { socketPath: host };
  if (host.startsWith('tcp://') || host.startsWith('http://')) {
    const url = new URL(host.replace(/^tcp:/, 'http:'));
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 2375) };
  }
  throw new VmhubError('INVALID_REQUEST', `[vmhub] [provider-docker] DOCKER_HOST "${host}" is not understood: use unix:///path/to/docker.sock or tcp://host:port`, { source: 'provider-docker' });
}
