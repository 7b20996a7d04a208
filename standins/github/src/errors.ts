/**
 * GitHub's error bodies: `{ message, documentation_url, status }` (the `basic-error` schema; the
 * `status` string is what api.github.com adds today), and the message texts the stand-in answers
 * with. Texts marked "seen" appear verbatim in public issue threads quoting GitHub's responses;
 * the others are GitHub's usual wording as far as this package's author knows (README lists them).
 */
export const REST_DOCS = 'https://docs.github.com/rest';

export interface GithubErrorBody {
  message: string;
  documentation_url: string;
  status: string;
}

export function githubError(status: number, message: string, documentationUrl = REST_DOCS): GithubErrorBody {
  return { message, documentation_url: documentationUrl, status: String(status) };
}

export const MESSAGES = {
  /** seen: a JWT that is not three base64url parts, not RS256, or whose signature fails. */
  jwtUndecodable: 'A JSON web token could not be decoded',
  /** seen: a JWT whose `iss` names no App GitHub knows. */
  integrationNotFound: 'Integration not found',
  /** seen: `iat` missing, not an integer, or more than 60 s in the future. */
  jwtIat: "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
  /** seen: `exp` missing, not a number, or not in the future. */
  jwtExpPast: "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
  /** seen: `exp` more than 10 minutes after `iat`. */
  jwtExpTooFar: "'Expiration time' claim ('exp') is too far in the future",
  /** seen (GitHub's answer to an unknown, revoked or expired token). */
  badCredentials: 'Bad credentials',
  notFound: 'Not Found',
  /** seen: a mint asking for a permission beyond the installation's. */
  permissionsNotGranted: 'The permissions requested are not granted to this installation.',
  /** not confirmed from a source: a mint naming a repository outside the installation. */
  repositoryNotAccessible: 'There is at least one repository that does not exist or is not accessible to the parent installation.',
  problemsParsingJson: 'Problems parsing JSON',
  forbidden: 'Resource not accessible by integration',
  validationFailed: 'Validation Failed',
  serverError: 'Server Error',
} as const;

/** The message `failNext` uses when the test gives none. */
export function defaultMessage(status: number): string {
  switch (status) {
    case 401: return MESSAGES.badCredentials;
    case 403: return MESSAGES.forbidden;
    case 404: return MESSAGES.notFound;
    case 422: return MESSAGES.validationFailed;
    default: return status >= 500 ? MESSAGES.serverError : `HTTP ${status}`;
  }
}
