/**
 * Named locks that lapse: a holder takes the lock until a time and renews it while it works; if
 * it dies, the lock lapses and another may take it. The reaper holds "reaper" so a server can
 * tell that one runs for this store (and start one when none does).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface LockHeld {
  holder: string;
  until: number;
}

/** Take or renew `name` until `until`; true when `holder` holds it afterwards. */
export async function acquireLock(db: Kysely<Database>, name: string, holder: string, until: number): Promise<boolean> {
  const now = Date.now();
  const row = await db.insertInto('locks').values({ name, holder, until })
    .onConflict((oc) => oc.column('name').doUpdateSet({ holder, until }).where((eb) => eb.or([eb('locks.until', '<', now), eb('locks.holder', '=', holder)])))
    .returning('holder')
    .executeTakeFirst();
  return row?.holder === holder;
}

/** Give the lock up (only if `holder` holds it). */
export async function releaseLock(db: Kysely<Database>, name: string, holder: string): Promise<void> {
  await db.deleteFrom('locks').where('name', '=', name).where('holder', '=', holder).execute();
}

/** Who holds `name` now (a lapsed lock is nobody's). */
export async function lockHolder(db: Kysely<Database>, name: string): Promise<LockHeld | undefined> {
  const row = await db.selectFrom('locks').select(['holder', 'until']).where('name', '=', name).where('until', '>=', Date.now()).executeTakeFirst();
  return row ?? undefined;
}
