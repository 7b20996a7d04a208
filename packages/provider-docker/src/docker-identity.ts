/**
 * Identity labels a vmhub container carries, and the one check destroy, list and channel trust:
 * the `vmhub.identity` label AND the container name must both equal the identity.
 */
export const LABEL_IDENTITY = 'vmhub.identity';
export const LABEL_LEASE = 'vmhub.lease';
export const LABEL_TEMPLATE = 'vmhub.template';
export const LABEL_CREATED = 'vmhub.created';

export interface ContainerSummary {
  Id: string;
  Names?: string[];
  Name?: string;
  Labels?: Record<string, string> | null;
  Config?: { Labels?: Record<string, string> | null };
  State?: string | { Running?: boolean; Status?: string; ExitCode?: number; Error?: string };
  Created?: number | string;
}

export function labelsOf(c: ContainerSummary): Record<string, string> {
  return c.Config?.Labels ?? c.Labels ?? {};
}

export function namesOf(c: ContainerSummary): string[] {
  return (c.Names ?? (c.Name ? [c.Name] : [])).map((n) => n.replace(/^\//, ''));
}

/** True only when the label and the name both carry `identity`. */
export function carriesIdentity(c: ContainerSummary, identity: string): boolean {
  return identity !== '' && labelsOf(c)[LABEL_IDENTITY] === identity && namesOf(c).includes(identity);
}
