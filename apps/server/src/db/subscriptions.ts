import type { Expression, Kysely } from 'kysely';
import { compiledQuery } from './compiled-query.js';
import type { Database } from './schema.js';

/**
 * The enabled subscriptions of the instance to an event type, with what their events carry. The instance
 * may be an expression, for a query that reads them for several instances.
 */
export const subscriptionsOf = (
  db: Kysely<Database>,
  instanceId: number | Expression<number>,
  type: string,
) =>
  db
    .selectFrom('subscriptions')
    .innerJoin('integrations', 'integrations.id', 'subscriptions.integration_id')
    .innerJoin('users', 'users.id', 'integrations.owner_id')
    .innerJoin('instances', 'instances.id', 'subscriptions.instance_id')
    .select([
      'instances.domain',
      'subscriptions.id as subscriptionId',
      'subscriptions.url',
      'subscriptions.slash_command as slashCommand',
      'integrations.id as integrationId',
      'integrations.scope',
      'integrations.channel_ids',
      'integrations.owner_id',
      'integrations.headers',
      'users.name as ownerName',
      'users.email as ownerEmail',
    ])
    .where('subscriptions.instance_id', '=', instanceId)
    .where('subscriptions.event_type', '=', type)
    .where('subscriptions.disabled_at', 'is', null)
    .orderBy('subscriptions.created_at');

/** subscriptionsOf for one instance id, compiled once (compiled-query.ts): read for every event emitted. */
const selectSubscriptions = compiledQuery((db: Kysely<Database>, instanceId: number, type: string) =>
  subscriptionsOf(db, instanceId, type),
);

/** A subscription as an event's outbox rows need it. */
export type SubscriptionRow = Awaited<ReturnType<typeof selectSubscriptions>>['rows'][number];

/** The enabled subscriptions of the instance to an event type. */
export async function subscriptionsTo(
  db: Kysely<Database>,
  instanceId: number,
  type: string,
): Promise<SubscriptionRow[]> {
  return (await selectSubscriptions(db, instanceId, type)).rows;
}
