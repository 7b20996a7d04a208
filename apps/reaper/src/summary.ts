/**
 * What one pass did. The summary line is the operator's alerting surface: `errors` > 0 makes
 * `--once` exit 1, and `skipped` always says why, so nothing is deferred silently.
 */
export interface PassError {
  lease_id?: string;
  provider?: string;
  message: string;
}

export interface PassSummary {
  reaper_id: string;
  started_at: string;
  /** Live leases moved to `expired` this pass (TTL or max lifetime). */
  expired: number;
  /** Leases whose machine is gone and that reached `reaped`. */
  reaped: number;
  /** Leases stuck in provisioning/starting past their deadline, moved to `failed`. */
  failed: number;
  /** Releases taken over from a dead server and finished (`released`). */
  released: number;
  /** Machines with this instance's identity and no live lease, old enough to be torn down. */
  orphans: number;
  /** Provider destroy calls that actually destroyed a machine. */
  destroyed: number;
  /** Snapshots deleted (expired, or orphans: snapshots.ts). */
  snapshots: number;
  skipped: number;
  skipped_reasons: Record<string, number>;
  errors: number;
  error_details: PassError[];
  duration_ms: number;
}

export class Tally {
  readonly summary: PassSummary;
  private readonly t0 = performance.now();

  constructor(reaperId: string) {
    this.summary = {
      reaper_id: reaperId, started_at: new Date().toISOString(),
      expired: 0, reaped: 0, failed: 0, released: 0, orphans: 0, destroyed: 0, snapshots: 0,
      skipped: 0, skipped_reasons: {}, errors: 0, error_details: [], duration_ms: 0,
    };
  }

  snapshot(): void {
    this.summary.snapshots++;
  }

  skip(reason: string): void {
    this.summary.skipped++;
    this.summary.skipped_reasons[reason] = (this.summary.skipped_reasons[reason] ?? 0) + 1;
  }

  error(error: PassError): void {
    this.summary.errors++;
    // Bounded: a provider down with 10,000 leases must not make a 10,000-entry report.
    if (this.summary.error_details.length < 50) this.summary.error_details.push(error);
  }

  finish(): PassSummary {
    this.summary.duration_ms = Math.round(performance.now() - this.t0);
    return this.summary;
  }
}

export function formatSummary(s: PassSummary): string {
  const reasons = Object.entries(s.skipped_reasons).map(([k, v]) => `${k}=${v}`).join(', ');
  return `reaper pass: expired=${s.expired} reaped=${s.reaped} failed=${s.failed} released=${s.released} orphans=${s.orphans} destroyed=${s.destroyed} snapshots=${s.snapshots} skipped=${s.skipped}${reasons ? ` (${reasons})` : ''} errors=${s.errors} duration_ms=${s.duration_ms}`;
}

export function summaryJson(s: PassSummary): string {
  return JSON.stringify({ msg: 'reaper pass', ...s });
}
