/**
 * Tag normalisation as pve-guest-common get_unique_tags does with the default datacenter
 * `tag-style`: split on `;`, `,` and whitespace, lower-case, de-duplicate, sort, join with `;`.
 */
import { splitList } from './pve-formats.ts';

export function normalizeTags(input: string): string {
  const unique = [...new Set(splitList(input).map((t) => t.toLowerCase()))];
  unique.sort();
  return unique.join(';');
}

export function tagSet(stored: string | undefined): string[] {
  return stored ? splitList(stored) : [];
}
