/**
 * The GitHub App's identity on this host: its numeric id and its private key, read from the file
 * or env var `github_app` names. Read when first needed and kept in memory; the key never leaves
 * the process (it signs JWTs here, app-jwt.ts) and no message ever quotes it. Every failure names
 * the config key to fix.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { VmhubError } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';

export type GithubAppConfig = NonNullable<VmhubConfig['github_app']>;

export interface AppIdentity {
  appId: number;
  key: KeyObject;
}

const SOURCE = 'github-app';

function configError(key: string, message: string, hint: string): VmhubError {
  return new VmhubError('INVALID_REQUEST', `github_app.${key}: ${message}`, { source: SOURCE, hint });
}

export function loadAppIdentity(cfg: GithubAppConfig, env: NodeJS.ProcessEnv = process.env): AppIdentity {
  const rawId = String(cfg.app_id).trim();
  if (!/^[1-9][0-9]{0,15}$/.test(rawId)) throw configError('app_id', `${JSON.stringify(String(cfg.app_id).slice(0, 40))} is not a number`, 'Set github_app.app_id to the App\'s numeric id (the App\'s settings page, "App ID"), not its name or client id.');
  if ((cfg.private_key_file === undefined) === (cfg.private_key_env === undefined)) {
    throw configError('private_key_file', 'give exactly one of private_key_file or private_key_env', 'Point github_app.private_key_file at the .pem GitHub generated for the App, or name an env var holding it in github_app.private_key_env.');
  }
  let pem: string;
  let where: string;
  if (cfg.private_key_file !== undefined) {
    where = 'private_key_file';
    try {
      pem = readFileSync(cfg.private_key_file, 'utf8');
    } catch (err) {
      throw configError(where, `cannot read ${cfg.private_key_file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'Check the path and that the vmhub server\'s user can read the file (mode 0600 is enough).');
    }
  } else {
    where = 'private_key_env';
    const value = env[cfg.private_key_env!];
    if (!value) throw configError(where, `env ${cfg.private_key_env} is not set on the vmhub host`, `Export ${cfg.private_key_env} (the App's PEM) in the server's environment.`);
    // One-line env values often carry the PEM's newlines as \\n.
    pem = value.includes('\n') ? value : value.replace(/\\n/g, '\n');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    // The parser's message may quote the input: say only what kind of thing was wrong.
    throw configError(where, 'holds no private key in PEM form', 'Use the .pem file GitHub generated for the App (-----BEGIN RSA PRIVATE KEY-----), unchanged.');
  }
  if (key.asymmetricKeyType !== 'rsa') throw configError(where, `holds a ${key.asymmetricKeyType ?? 'non-RSA'} key; GitHub App keys are RSA`, 'Use the .pem file GitHub generated for the App.');
  return { appId: Number(rawId), key };
}
