// The dispatcher's statements on the `event_deliveries` outbox, each a small function taking the database
// (as graphile-worker's getJob/completeJob/failJob): claim due rows under a lease, read what an attempt
// needs, record outcomes, and disable a subscription whose receiver answered 410 Gone.
import type { Kysely, Selectable } from 'kysely';
import { compiledQuery } from '../db/compiled-query.js';
import type { Database, Dialect, EventDeliveriesTable } from '../db/schema.js';

/** The columns a claim reads. */
const CLAIMED_COLUMNS = [
  'id',
  'instance_id',
  'integration_id',
  'subscription_id',
  'event_type',
  'url',
  'payload',
  'headers',
  'attempts',
  'created_at',
] as const;
export type ClaimedDelivery = Pick<Selectable<EventDeliveriesTable>, (typeof CLAIMED_COLUMNS)[number]>;

export interface Claim {
  /** Written to `locked_by`: only this worker may record the outcome. */
  workerId: string;
  leaseMs: number;
  limit: number;
  now: number;
}

/** Locks up to `limit` due rows for `leaseMs` and counts the attempt on each; returns them. */
export async function claimDeliveries(
  db: Kysely<Database>,
  dialect: Dialect,
  claim: Claim,
): Promise<ClaimedDelivery[]> {
  const { now } = claim;
  let due = db
    .selectFrom('event_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('next_attempt_at')
    .limit(claim.limit);
  // PostgreSQL: rows another instance is claiming right now are skipped, not waited for. SQLite: the
  // single UPDATE … RETURNING statement is atomic (one writer at a time), which is the whole claim.
  if (dialect === 'postgres') due = due.forUpdate().skipLocked();
  const rows = await db
    .updateTable('event_deliveries')
    .set((eb) => ({
      locked_until: now + claim.leaseMs,
      locked_by: claim.workerId,
      // Counted at claim time, so an attempt cut short by a crash still counts towards the schedule
      // (a payload that kills the process cannot be retried forever).
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', 'in', due)
    .returning(CLAIMED_COLUMNS)
    .execute();
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
}

// Read for every attempt: compiled once (db/compiled-query.ts).
const selectSubscription = compiledQuery((db: Kysely<Database>, id: string) =>
  db.selectFrom('subscriptions').select(['id', 'disabled_at']).where('id', '=', id),
);
const selectIntegration = compiledQuery((db: Kysely<Database>, id: string) =>
  db.selectFrom('integrations').select(['id', 'signing_secret']).where('id', '=', id),
);

/** The subscription and integration of a delivery as they are now; undefined where deleted. */
export async function findDeliveryTarget(
  db: Kysely<Database>,
  delivery: Pick<ClaimedDelivery, 'subscription_id' | 'integration_id'>,
) {
  const [subscription, integration] = await Promise.all([
    selectSubscription(db, delivery.subscription_id).then((result) => result.rows[0]),
    selectIntegration(db, delivery.integration_id).then((result) => result.rows[0]),
  ]);
  return { subscription, integration };
}

/** What an attempt leaves on its row: done (delivered, failed) or pending with the next attempt's time. */
export type DeliveryOutcome = {
  status: 'pending' | 'delivered' | 'failed';
  next_attempt_at?: number;
  delivered_at?: number;
  last_status: number | null;
  last_error: string | null;
};

/**
 * Writes outcomes, each only while `workerId` still holds the row's lease (otherwise the new holder
 * decides), several in one transaction (one commit instead of one each). Returns, in order, whether
 * each was written.
 */
export async function recordOutcomes(
  db: Kysely<Database>,
  workerId: string,
  outcomes: ReadonlyArray<{ id: string; outcome: DeliveryOutcome }>,
  now: number,
): Promise<boolean[]> {
  const update = (executor: Kysely<Database>, id: string, outcome: DeliveryOutcome) =>
    executor
      .updateTable('event_deliveries')
      .set({ ...outcome, finished_at: outcome.status === 'pending' ? null : now, locked_until: null })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'pending')
      .executeTakeFirst()
      .then((result) => Number(result.numUpdatedRows) > 0);
  // One outcome alone needs no transaction around its single statement.
  const [only] = outcomes;
  if (only && outcomes.length === 1) return [await update(db, only.id, only.outcome)];
  return db.transaction().execute(async (trx) => {
    const written: boolean[] = [];
    for (const { id, outcome } of outcomes) written.push(await update(trx, id, outcome));
    return written;
  });
}

/**
 * 410 Gone: disables the subscription and closes every pending delivery for it, in one transaction;
 * `deliveryId`, the delivery that was answered 410, keeps that status.
 */
export async function disableSubscription(
  db: Kysely<Database>,
  subscriptionId: string,
  deliveryId: string,
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('subscriptions')
      .set({ disabled_at: now })
      .where('id', '=', subscriptionId)
      .where('disabled_at', 'is', null)
      .execute();
    await trx
      .updateTable('event_deliveries')
      .set({
        status: 'failed',
        locked_until: null,
        finished_at: now,
        last_error: 'subscription disabled: receiver answered 410 Gone',
      })
      .where('subscription_id', '=', subscriptionId)
      .where('status', '=', 'pending')
      .execute();
    await trx
      .updateTable('event_deliveries')
      .set({ last_status: 410 })
      .where('id', '=', deliveryId)
      .execute();
  });
}
