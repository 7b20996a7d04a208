/**
 * An error the simulator answers the way pveproxy does: the first line of the message becomes the
 * HTTP reason phrase; the body is `{"data":null,"message":"...\n"}` plus an `errors` map for
 * parameter errors; 401 and 595-599 answers have an empty body.
 */
export class PveHttpError extends Error {
  readonly status: number;
  readonly errors: Record<string, string> | undefined;
  readonly emptyBody: boolean;

  constructor(status: number, message: string, errors?: Record<string, string>) {
    super(message);
    this.status = status;
    this.errors = errors;
    this.emptyBody = status === 401 || status >= 595;
  }
}

/** 400 `Parameter verification failed.` with one message per parameter. */
export function paramError(errors: Record<string, string>): PveHttpError {
  return new PveHttpError(400, 'Parameter verification failed.', errors);
}

/** 500: what any handler `die` becomes. */
export function fail(message: string): PveHttpError {
  return new PveHttpError(500, message);
}

/** 403 `Permission check failed (<what>)`. */
export function permError(what?: string): PveHttpError {
  return new PveHttpError(403, what ? `Permission check failed (${what})` : 'Permission check failed');
}
