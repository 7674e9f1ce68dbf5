// The dispatcher's statements on the `event_deliveries` outbox (as graphile-worker's getJob/completeJob/
// failJob): claim due rows under a lease with what their attempts read, record outcomes, hand back rows
// held by a cap or a breaker, keep each subscription's circuit breaker, and disable a subscription whose
// receiver answered 410 Gone. One store per database: the claim and the outcomes differ between SQLite
// and PostgreSQL, the rest is shared.
import { type Kysely, type QueryCreator, type RawBuilder, type Selectable, sql } from 'kysely';
import { jsonObjectFrom } from 'kysely/helpers/postgres';
import { compiledQuery } from './compiled-query.js';
import type { Database, EventDeliveriesTable } from './schema.js';

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
/** What an attempt reads of its subscription (whether it may go, its breaker) and of its integration. */
const SUBSCRIPTION_COLUMNS = ['id', 'disabled_at', 'breaker_failures', 'breaker_open_until'] as const;
const INTEGRATION_COLUMNS = ['id', 'signing_secret'] as const;

/** A claimed row, with its subscription and integration as the claim found them (undefined: deleted). */
export type ClaimedDelivery = Pick<Selectable<EventDeliveriesTable>, (typeof CLAIMED_COLUMNS)[number]> & {
  subscription: DeliverySubscription | undefined;
  integration: DeliveryIntegration | undefined;
};

/** What an attempt leaves on its row: done (delivered, failed) or pending with the next attempt's time. */
export type DeliveryOutcome = {
  status: 'pending' | 'delivered' | 'failed';
  next_attempt_at?: number;
  delivered_at?: number;
  last_status: number | null;
  last_error: string | null;
};

/** A subscription's circuit breaker after a failure was counted on it. */
export type BreakerState = { failures: number; openUntil: number | null };

export interface OutboxStore {
  /**
   * Locks up to `limit` due rows for `leaseMs`, counts the attempt on each, and returns them with their
   * subscriptions and integrations. Rows of a subscription whose circuit breaker is open are not due.
   */
  claim(claim: Claim): Promise<ClaimedDelivery[]>;
  /**
   * Writes outcomes, each only while `workerId` still holds the row's lease (otherwise the new holder
   * decides), all in one statement. Returns, in order, whether each was written.
   */
  recordOutcomes(
    workerId: string,
    outcomes: ReadonlyArray<{ id: string; outcome: DeliveryOutcome }>,
    now: number,
  ): Promise<boolean[]>;
  /** Hands claimed rows back untried: unlocked, the attempt the claim counted taken back. */
  release(workerId: string, ids: readonly string[]): Promise<void>;
  /** 410 Gone: disables the subscription and closes its pending deliveries. */
  disableSubscription(subscriptionId: string, deliveryId: string, now: number): Promise<void>;
  /** Half-open breaker: takes the one probe until `probeUntil`; false when someone else took it. */
  takeBreakerProbe(subscriptionId: string, now: number, probeUntil: number): Promise<boolean>;
  /** Counts a failed attempt on the breaker, opening it at the threshold; undefined: no subscription. */
  recordBreakerFailure(
    subscriptionId: string,
    options: { now: number; threshold: number; cooldownMs: number },
  ): Promise<BreakerState | undefined>;
  /** A success closes the breaker. */
  closeBreaker(subscriptionId: string): Promise<void>;
}

export function sqliteOutboxStore(db: Kysely<Database>): OutboxStore {
  return {
    ...sharedStatements(db),
    claim: (claim) => claimSqlite(db, claim),
    recordOutcomes: (workerId, outcomes, now) =>
      writeOutcomes(db, outcomes, (json) => writeOutcomesSqlite(json, workerId, now)),
  };
}

export function postgresOutboxStore(db: Kysely<Database>): OutboxStore {
  return {
    ...sharedStatements(db),
    claim: (claim) => claimPostgres(db, claim),
    recordOutcomes: (workerId, outcomes, now) =>
      writeOutcomes(db, outcomes, (json, ids) => writeOutcomesPostgres(json, ids, workerId, now)),
  };
}

function sharedStatements(db: Kysely<Database>) {
  return {
    release: (workerId: string, ids: readonly string[]) => releaseDeliveries(db, workerId, ids),
    disableSubscription: (subscriptionId: string, deliveryId: string, now: number) =>
      disableSubscription(db, subscriptionId, deliveryId, now),
    takeBreakerProbe: (subscriptionId: string, now: number, probeUntil: number) =>
      takeBreakerProbe(db, subscriptionId, now, probeUntil),
    recordBreakerFailure: (
      subscriptionId: string,
      options: { now: number; threshold: number; cooldownMs: number },
    ) => recordBreakerFailure(db, subscriptionId, options),
    closeBreaker: (subscriptionId: string) => closeBreaker(db, subscriptionId),
  };
}

export interface Claim {
  /** Written to `locked_by`: only this worker may record the outcome. */
  workerId: string;
  leaseMs: number;
  limit: number;
  now: number;
  /** Subscriptions this worker has no room for now (their caps are full): their rows are left alone. */
  excludeSubscriptions?: readonly string[];
}

/** The rows a claim takes: due, not locked, their breaker not open, their subscription not excluded. */
function dueRows(db: Kysely<Database>, claim: Claim) {
  const { now } = claim;
  const due = db
    .selectFrom('event_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('subscriptions')
            .select(sql.lit(1).as('open'))
            .whereRef('subscriptions.id', '=', 'event_deliveries.subscription_id')
            .where('subscriptions.breaker_open_until', '>', now),
        ),
      ),
    )
    .orderBy('next_attempt_at')
    .limit(claim.limit);
  const excluded = claim.excludeSubscriptions ?? [];
  return excluded.length > 0 ? due.where('subscription_id', 'not in', excluded) : due;
}

/** Locks the rows `due` selects under this worker's lease, counting the attempt. */
function lockRows(creator: QueryCreator<Database>, due: ReturnType<typeof dueRows>, claim: Claim) {
  return creator
    .updateTable('event_deliveries')
    .set((eb) => ({
      locked_until: claim.now + claim.leaseMs,
      locked_by: claim.workerId,
      // Counted at claim time, so an attempt cut short by a crash still counts towards the schedule
      // (a payload that kills the process cannot be retried forever).
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', 'in', due)
    .returning(CLAIMED_COLUMNS);
}

/**
 * SQLite: the single UPDATE … RETURNING statement is atomic (one writer at a time), which is the whole
 * claim; the subscriptions and integrations are then read for all the rows at once (no round trip).
 */
async function claimSqlite(db: Kysely<Database>, claim: Claim): Promise<ClaimedDelivery[]> {
  const rows = await lockRows(db, dueRows(db, claim), claim).execute();
  if (rows.length === 0) return [];
  const [subscriptions, integrations] = await Promise.all([
    findSubscriptions(db, [...new Set(rows.map((row) => row.subscription_id))]),
    findIntegrations(db, [...new Set(rows.map((row) => row.integration_id))]),
  ]);
  return rows.map((row) => ({
    ...row,
    attempts: Number(row.attempts),
    subscription: subscriptions.get(row.subscription_id),
    integration: integrations.get(row.integration_id),
  }));
}

/**
 * PostgreSQL: rows another instance is claiming right now are skipped, not waited for; the subscription
 * and integration of each row are read in the same statement (a CTE around the UPDATE … RETURNING, each
 * read as a JSON object, null when deleted): one round trip.
 */
async function claimPostgres(db: Kysely<Database>, claim: Claim): Promise<ClaimedDelivery[]> {
  const due = dueRows(db, claim).forUpdate().skipLocked();
  const rows = await db
    .with('claimed', (creator) => lockRows(creator, due, claim))
    .selectFrom('claimed')
    .selectAll('claimed')
    .select((eb) => [
      jsonObjectFrom(
        eb
          .selectFrom('subscriptions')
          .select(SUBSCRIPTION_COLUMNS)
          .whereRef('subscriptions.id', '=', 'claimed.subscription_id'),
      ).as('subscription'),
      jsonObjectFrom(
        eb
          .selectFrom('integrations')
          .select(INTEGRATION_COLUMNS)
          .whereRef('integrations.id', '=', 'claimed.integration_id'),
      ).as('integration'),
    ])
    .execute();
  return rows.map(({ subscription, integration, ...row }) => ({
    ...row,
    attempts: Number(row.attempts),
    subscription: subscription ?? undefined,
    integration: integration ?? undefined,
  }));
}

// Read for every attempt: compiled once (db/compiled-query.ts).
const selectSubscription = compiledQuery((db: Kysely<Database>, id: string) =>
  db.selectFrom('subscriptions').select(SUBSCRIPTION_COLUMNS).where('id', '=', id),
);
const selectIntegration = compiledQuery((db: Kysely<Database>, id: string) =>
  db.selectFrom('integrations').select(INTEGRATION_COLUMNS).where('id', '=', id),
);

/** A delivery's subscription as the attempt reads it. */
export type DeliverySubscription = NonNullable<
  Awaited<ReturnType<typeof selectSubscription>>['rows'][number]
>;
/** A delivery's integration as the attempt reads it. */
export type DeliveryIntegration = NonNullable<Awaited<ReturnType<typeof selectIntegration>>['rows'][number]>;

/**
 * The subscriptions with these ids as they are now (deleted ones are missing). One id: the compiled
 * query; several: one query for all.
 */
async function findSubscriptions(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, DeliverySubscription>> {
  const rows =
    ids.length === 1
      ? (await selectSubscription(db, ids[0] as string)).rows
      : await db.selectFrom('subscriptions').select(SUBSCRIPTION_COLUMNS).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** The integrations with these ids as they are now (deleted ones are missing), like findSubscriptions. */
async function findIntegrations(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, DeliveryIntegration>> {
  const rows =
    ids.length === 1
      ? (await selectIntegration(db, ids[0] as string)).rows
      : await db.selectFrom('integrations').select(INTEGRATION_COLUMNS).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Writes the outcomes with the store's statement, to which they travel as one JSON parameter, so the SQL
 * text is the same for any number (one prepared statement).
 */
async function writeOutcomes(
  db: Kysely<Database>,
  outcomes: ReadonlyArray<{ id: string; outcome: DeliveryOutcome }>,
  statement: (json: string, ids: string[]) => RawBuilder<{ id: string }>,
): Promise<boolean[]> {
  if (outcomes.length === 0) return [];
  const json = JSON.stringify(
    outcomes.map(({ id, outcome }) => ({
      id,
      status: outcome.status,
      next_attempt_at: outcome.next_attempt_at ?? null,
      delivered_at: outcome.delivered_at ?? null,
      last_status: outcome.last_status,
      last_error: outcome.last_error,
    })),
  );
  const ids = outcomes.map(({ id }) => id);
  const written = new Set((await statement(json, ids).execute(db)).rows.map((row) => row.id));
  return ids.map((id) => written.has(id));
}

// A row not pending any more was closed meanwhile (410 Gone disabled its subscription): left as it is.
// SQLite: the unary `+` keeps the planner from reading every pending row through the due index (the whole
// backlog, under load) and matching each against the JSON; it looks each outcome's row up by its id.
const writeOutcomesSqlite = (json: string, workerId: string, now: number) => sql<{ id: string }>`
  update event_deliveries set
    status = o.status,
    next_attempt_at = coalesce(o.next_attempt_at, event_deliveries.next_attempt_at),
    delivered_at = coalesce(o.delivered_at, event_deliveries.delivered_at),
    last_status = o.last_status,
    last_error = o.last_error,
    finished_at = case when o.status = 'pending' then null else ${now} end,
    locked_until = null
  from (
    select value ->> 'id' as id, value ->> 'status' as status, value ->> 'next_attempt_at' as next_attempt_at,
      value ->> 'delivered_at' as delivered_at, value ->> 'last_status' as last_status,
      value ->> 'last_error' as last_error
    from json_each(${json})
  ) as o
  where event_deliveries.id = o.id and event_deliveries.locked_by = ${workerId}
    and +event_deliveries.status = 'pending'
  returning event_deliveries.id`;

// PostgreSQL: the ids again as an array, so that the rows are found through the primary key; joined to the
// JSON alone, the planner (which guesses 100 JSON rows) scanned the whole outbox.
const writeOutcomesPostgres = (json: string, ids: string[], workerId: string, now: number) => sql<{
  id: string;
}>`
  update event_deliveries as d set
    status = o.status,
    next_attempt_at = coalesce(o.next_attempt_at, d.next_attempt_at),
    delivered_at = coalesce(o.delivered_at, d.delivered_at),
    last_status = o.last_status,
    last_error = o.last_error,
    finished_at = case when o.status = 'pending' then null else ${now}::bigint end,
    locked_until = null
  from jsonb_to_recordset(${json}::jsonb) as o(id text, status text, next_attempt_at bigint,
    delivered_at bigint, last_status integer, last_error text)
  where d.id = o.id and d.id = any(${ids}::text[]) and d.locked_by = ${workerId} and d.status = 'pending'
  returning d.id`;

/**
 * 410 Gone: disables the subscription and closes every pending delivery for it, in one transaction;
 * `deliveryId`, the delivery that was answered 410, keeps that status.
 */
async function disableSubscription(
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

/**
 * Hands claimed rows back untried (a cap had no room, or the breaker holds them): unlocked, and the
 * attempt the claim counted is taken back, so holding a row back never spends its retries.
 */
async function releaseDeliveries(
  db: Kysely<Database>,
  workerId: string,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('event_deliveries')
    .set((eb) => ({ locked_until: null, locked_by: null, attempts: eb('attempts', '-', 1) }))
    .where('id', 'in', ids)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Half-open breaker: takes the one probe, marking the breaker busy until `probeUntil` (the probe's
 * deadline), so that no other attempt — of this worker or another instance — goes meanwhile. False when
 * someone else took it first or the breaker is not half-open any more.
 */
async function takeBreakerProbe(
  db: Kysely<Database>,
  subscriptionId: string,
  now: number,
  probeUntil: number,
): Promise<boolean> {
  const result = await db
    .updateTable('subscriptions')
    .set({ breaker_open_until: probeUntil })
    .where('id', '=', subscriptionId)
    .where('breaker_open_until', 'is not', null)
    .where('breaker_open_until', '<=', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Counts a failed attempt on the subscription's breaker; at `threshold` consecutive failures (or when
 * it was a probe that failed) the breaker opens until `now + cooldownMs`, and the subscription's waiting
 * rows are moved to that time, so that claims do not walk over them meanwhile. Returns the new state.
 */
async function recordBreakerFailure(
  db: Kysely<Database>,
  subscriptionId: string,
  options: { now: number; threshold: number; cooldownMs: number },
): Promise<BreakerState | undefined> {
  const { now, threshold, cooldownMs } = options;
  const openUntil = now + cooldownMs;
  const row = await db
    .updateTable('subscriptions')
    .set((eb) => ({
      breaker_failures: eb('breaker_failures', '+', 1),
      breaker_open_until: eb
        .case()
        .when(eb('breaker_failures', '>=', threshold - 1))
        .then(openUntil)
        .else(eb.ref('breaker_open_until'))
        .end(),
    }))
    .where('id', '=', subscriptionId)
    .returning(['breaker_failures', 'breaker_open_until'])
    .executeTakeFirst();
  if (!row) return undefined;
  const state = { failures: Number(row.breaker_failures), openUntil: row.breaker_open_until };
  if (state.openUntil === openUntil) {
    await db
      .updateTable('event_deliveries')
      .set({ next_attempt_at: openUntil })
      .where('subscription_id', '=', subscriptionId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<', openUntil)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .execute();
  }
  return state;
}

/** A success closes the breaker: no failures counted, nothing held. */
async function closeBreaker(db: Kysely<Database>, subscriptionId: string): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set({ breaker_failures: 0, breaker_open_until: null })
    .where('id', '=', subscriptionId)
    .execute();
}
