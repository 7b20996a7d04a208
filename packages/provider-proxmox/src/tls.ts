/**
 * TLS trust for one endpoint. Proxmox nodes usually present a certificate signed by the cluster's
 * own CA, so the operator either gives that CA (normal chain + hostname verification) or pins the
 * node certificate's SHA-256 fingerprint. Pinning is checked before the socket is handed to the
 * HTTP layer, so no request (and no token) is written to an unverified peer. Verification is off
 * only when the operator said `insecure_skip_verify: true`.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { VmhubError } from '@vmhub/core';
import type { ResolvedEndpoint } from './config.ts';
import { SOURCE } from './pve-errors.ts';

export function fingerprintOf(cert: tls.PeerCertificate): string {
  return (cert.fingerprint256 ?? '').replace(/:/g, '').toLowerCase();
}

class PinnedAgent extends https.Agent {
  readonly #pin: string;
  readonly #endpoint: string;

  constructor(pin: string, endpoint: string, options: https.AgentOptions) {
    super(options);
    this.#pin = pin;
    this.#endpoint = endpoint;
  }

  // Callback form: http.Agent waits for the callback, so the request is written only after the pin check.
  override createConnection(options: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | undefined {
    const socket = tls.connect({ ...(options as tls.ConnectionOptions), rejectUnauthorized: false });
    let done = false;
    const finish = (err: Error | null): void => {
      if (done) return;
      done = true;
      socket.off('error', onError);
      if (err) {
        socket.destroy();
        callback?.(err, socket);
      } else {
        callback?.(null, socket);
      }
    };
    const onError = (err: Error): void => finish(err);
    socket.once('error', onError);
    socket.once('secureConnect', () => {
      const got = fingerprintOf(socket.getPeerCertificate());
      if (got !== this.#pin) {
        finish(new VmhubError('POLICY_DENIED', `[vmhub] [${SOURCE}] TLS certificate of node "${this.#endpoint}" has SHA-256 fingerprint ${got || '(none)'}, expected the pinned ${this.#pin}: check \`pvenode cert info\` on the node and fix the fingerprint option`, { source: SOURCE, retryable: false, hint: 'The node presented an unexpected certificate: verify the fingerprint with the Proxmox administrator.', details: { endpoint: this.#endpoint, reason: 'tls_fingerprint_mismatch' } }));
        return;
      }
      finish(null);
    });
    return undefined;
  }
}

/** One keep-alive agent per endpoint, honouring its trust settings. */
export function createAgent(endpoint: ResolvedEndpoint, maxSockets = 16): http.Agent {
  const base = { keepAlive: true, maxSockets, keepAliveMsecs: 10_000 };
  if (endpoint.baseUrl.startsWith('http:')) return new http.Agent(base);
  if (endpoint.fingerprint) return new PinnedAgent(endpoint.fingerprint, endpoint.id, base);
  if (endpoint.insecureSkipVerify) return new https.Agent({ ...base, rejectUnauthorized: false });
  const ca = endpoint.ca ?? (endpoint.caFile ? readCa(endpoint) : undefined);
  return new https.Agent({ ...base, rejectUnauthorized: true, ...(ca ? { ca } : {}) });
}

function readCa(endpoint: ResolvedEndpoint): string {
  try {
    return readFileSync(endpoint.caFile as string, 'utf8');
  } catch (err) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] cannot read CA file ${endpoint.caFile} for node "${endpoint.id}": ${(err as Error).message}`, { source: SOURCE, cause: err });
  }
}
