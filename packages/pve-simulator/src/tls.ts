/**
 * A self-signed certificate for 127.0.0.1/localhost made with the system's openssl (EC P-256:
 * fast to generate). One per process unless a fresh one is asked for.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export interface SimCertificate {
  cert: string;
  key: string;
  /** `AB:CD:...` SHA-256 fingerprint, the form PVE shows. */
  fingerprint256: string;
}

let shared: Promise<SimCertificate> | undefined;

export function simCertificate(fresh = false): Promise<SimCertificate> {
  if (fresh) return generate();
  shared ??= generate().catch((e: unknown) => {
    shared = undefined;
    throw e;
  });
  return shared;
}

async function generate(): Promise<SimCertificate> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pve-sim-cert-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    await promisify(execFile)('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', keyFile, '-out', certFile, '-days', '7', '-subj', '/CN=pve-simulator',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ]);
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    return { cert, key, fingerprint256: new X509Certificate(cert).fingerprint256 };
  } catch (e) {
    throw new Error(`[vmhub] [pve-simulator] could not generate a TLS certificate with openssl: ${(e as Error).message}; install openssl or start with { tls: false }`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
