/**
 * The App's JSON Web Token (RS256), what GitHub wants on the /app endpoints: `iat` 60 s in the
 * past (clock drift), `exp` 9 minutes ahead (GitHub refuses more than 10), `iss` the App id.
 * Made per request: a JWT is cheap and lives minutes.
 */
import { sign } from 'node:crypto';
import type { AppIdentity } from './app-key.ts';

const b64url = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function appJwt(app: AppIdentity, now = Date.now()): string {
  const t = Math.floor(now / 1000);
  const data = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url({ iat: t - 60, exp: t + 540, iss: app.appId })}`;
  return `${data}.${sign('sha256', Buffer.from(data), app.key).toString('base64url')}`;
}
