import { randomUUID } from 'node:crypto';
import type { WebhookEventType, WebhookPayload } from '@platform-api/client/types';
import type { Insertable, Kysely } from 'kysely';
import { ChannelAccess, type ChannelRow } from '../chat/access.js';
import type { Clock } from '../clock.js';
import type { ServerConfig } from '../config.js';
import type { Database, EventDeliveriesTable } from '../db/schema.js';
import { type SubscriptionRow, subscriptionsTo } from '../db/subscriptions.js';

/*
 * Event emission into the outbox (event_deliveries). Called with the transaction of the action that
 * caused the event, so the action and its deliveries commit (or roll back) together. One row per
 * matching subscription; the row id is the event id (`event.id` in the payload, `webhook-id` header).
 * The event types and payloads are the spec's webhooks (their generated types), and emitting costs the
 * same few queries whatever the number of subscriptions.
 */

/** The members every event carries; the emitting action supplies the rest (author, message, thread, users). */
type CommonMembers = 'event' | 'owner' | 'organization' | 'channel' | 'callback';

/** What an action supplies for an event of type T: the members its webhook payload has beyond the common ones. */
export type EventDetails<T extends WebhookEventType> = Omit<WebhookPayload<T>, CommonMembers>;

export type ChatEventInput = {
  [T in WebhookEventType]: {
    instanceId: number;
    type: T;
    /** The channel (or thread) the event happened on. */
    channel: ChannelRow;
    /** For SLASH_COMMAND: the invoked command (first word of the command line, with its `/`). */
    command?: string;
    details: EventDetails<T>;
  };
}[WebhookEventType];

export interface EmitServices {
  clock: Clock;
  config: Pick<ServerConfig, 'publicUrl'>;
}

export const chatUser = (user: { id: number; name: string; email: string }) => ({
  id: user.id,
  displayName: user.name,
  email: user.email,
});

/** `/deploy`, `deploy` and `/Deploy` are the same command. */
export const normaliseCommand = (command: string): string => `/${command.replace(/^\//, '').toLowerCase()}`;

/**
 * The subscriptions of `read` (the enabled ones of the instance to the event's type) that the event goes
 * to: all of them, or a slash command's, those to that command.
 */
function matchingSubscriptions(input: ChatEventInput, read: readonly SubscriptionRow[]) {
  return read.filter(
    (subscription) =>
      input.type !== 'SLASH_COMMAND' ||
      (input.command !== undefined &&
        subscription.slashCommand !== null &&
        normaliseCommand(subscription.slashCommand) === normaliseCommand(input.command)),
  );
}

/** The payload members every delivery of the event shares. */
function sharedMembers(input: ChatEventInput, domain: string, services: EmitServices) {
  const channel: Record<string, string> = { id: input.channel.id, title: input.channel.title };
  if (input.channel.parent_id !== null) channel.parentId = input.channel.parent_id;
  // The callback's token is not minted here: the outbox would keep it in clear. The dispatcher mints one
  // for each attempt and stores only its hash (auth/callback-tokens.ts).
  const callback = {
    url: `${services.config.publicUrl}/v1/chat/bots/message/${encodeURIComponent(input.channel.id)}`,
    headers: {},
  };
  return { organization: { domain }, channel, callback };
}

/** The outbox row of one subscription's delivery: its id is the event id. */
function outboxRow(
  input: ChatEventInput,
  subscription: SubscriptionRow,
  shared: ReturnType<typeof sharedMembers>,
  now: number,
): Insertable<EventDeliveriesTable> {
  const id = randomUUID();
  const payload = {
    event: { type: input.type, id },
    owner: chatUser({
      id: subscription.owner_id,
      name: subscription.ownerName,
      email: subscription.ownerEmail,
    }),
    organization: shared.organization,
    channel: shared.channel,
    callback: shared.callback,
    ...input.details,
  };
  return {
    id,
    instance_id: input.instanceId,
    integration_id: subscription.integrationId,
    subscription_id: subscription.subscriptionId,
    event_type: input.type,
    url: subscription.url,
    payload: JSON.stringify(payload),
    headers: subscription.headers,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: null,
    locked_by: null,
    last_status: null,
    last_error: null,
    created_at: now,
    delivered_at: null,
  };
}

/**
 * The outbox rows of the event, one per subscription of `subscriptions` (the instance's to the event's
 * type, db/subscriptions.ts) that matches it; nothing is written (emitChatEvent writes them, postMessage
 * hands them to the message store).
 */
export async function chatEventRows(
  db: Kysely<Database>,
  services: EmitServices,
  input: ChatEventInput,
  subscriptions: readonly SubscriptionRow[],
): Promise<Array<Insertable<EventDeliveriesTable>>> {
  const now = services.clock.now();
  const matching = matchingSubscriptions(input, subscriptions);
  const [first] = matching;
  if (!first) return [];
  // Owners matter only to OWNER_ACCESS integrations (active where their owner has access).
  const owners = matching.filter((s) => s.scope === 'OWNER_ACCESS').map((s) => s.owner_id);
  const access = await ChannelAccess.load(db, input.instanceId, owners, [input.channel]);
  const shared = sharedMembers(input, first.domain, services);
  return matching
    .filter((subscription) => access.isActiveOn(subscription, input.channel))
    .map((subscription) => outboxRow(input, subscription, shared, now));
}

/** Writes one outbox row per subscription that matches the event. Returns how many were written. */
export async function emitChatEvent(
  trx: Kysely<Database>,
  services: EmitServices,
  input: ChatEventInput,
): Promise<number> {
  const subscriptions = await subscriptionsTo(trx, input.instanceId, input.type);
  const rows = await chatEventRows(trx, services, input, subscriptions);
  if (rows.length > 0) await trx.insertInto('event_deliveries').values(rows).execute();
  return rows.length;
}
