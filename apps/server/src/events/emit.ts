import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { ServerConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { type ChannelRow, isActiveOn } from '../handlers/chat-access.js';

/*
 * Event emission into the outbox (event_deliveries). Called with the transaction of the action that
 * caused the event, so the action and its deliveries commit (or roll back) together. One row per
 * matching subscription; the row id is the event id (`event.id` in the payload, `webhook-id` header).
 */

/** The event types the server emits; each must be a key of the spec's `webhooks` (checked at start and in tests). */
export const EMITTED_EVENT_TYPES = [
  'MESSAGE_POSTED',
  'SLASH_COMMAND',
  'THREAD_CREATED',
  'USERS_JOINED_CHANNEL',
  'USERS_LEFT_CHANNEL',
] as const;
export type ChatEventType = (typeof EMITTED_EVENT_TYPES)[number];

export interface ChatEventInput {
  instanceId: number;
  type: ChatEventType;
  /** The channel (or thread) the event happened on. */
  channel: ChannelRow;
  /** For SLASH_COMMAND: the invoked command (first word of the command line, with its `/`). */
  command?: string;
  /** The event-specific members of the payload: author, message, thread, users. */
  details: Record<string, unknown>;
}

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

/** Writes one outbox row per subscription that matches the event. Returns how many were written. */
export async function emitChatEvent(
  trx: Kysely<Database>,
  services: EmitServices,
  input: ChatEventInput,
): Promise<number> {
  const now = services.clock.now();
  const instance = await trx
    .selectFrom('instances')
    .select(['domain'])
    .where('id', '=', input.instanceId)
    .executeTakeFirstOrThrow();
  const subscriptions = await trx
    .selectFrom('subscriptions')
    .innerJoin('integrations', 'integrations.id', 'subscriptions.integration_id')
    .selectAll('integrations')
    .select([
      'subscriptions.id as subscription_id',
      'subscriptions.url as subscription_url',
      'subscriptions.slash_command as subscription_command',
    ])
    .where('subscriptions.instance_id', '=', input.instanceId)
    .where('subscriptions.event_type', '=', input.type)
    .where('subscriptions.disabled_at', 'is', null)
    .orderBy('subscriptions.created_at')
    .execute();

  const channel: Record<string, string> = { id: input.channel.id, title: input.channel.title };
  if (input.channel.parent_id !== null) channel.parentId = input.channel.parent_id;

  // The callback's token is not minted here: the outbox would keep it in clear. The dispatcher mints one
  // for each attempt and stores only its hash (delivery/callback-tokens.ts).
  const callback = {
    url: `${services.config.publicUrl}/v1/chat/bots/message/${encodeURIComponent(input.channel.id)}`,
    headers: {},
  };

  let written = 0;
  for (const subscription of subscriptions) {
    if (input.type === 'SLASH_COMMAND') {
      if (!input.command || !subscription.subscription_command) continue;
      if (normaliseCommand(subscription.subscription_command) !== normaliseCommand(input.command)) continue;
    }
    if (!(await isActiveOn(trx, subscription, input.channel))) continue;

    const owner = await trx
      .selectFrom('users')
      .select(['id', 'name', 'email'])
      .where('id', '=', subscription.owner_id)
      .executeTakeFirstOrThrow();
    const id = randomUUID();
    const payload = {
      event: { type: input.type, id },
      owner: chatUser(owner),
      organization: { domain: instance.domain },
      channel,
      callback,
      ...input.details,
    };
    await trx
      .insertInto('event_deliveries')
      .values({
        id,
        instance_id: input.instanceId,
        integration_id: subscription.id,
        subscription_id: subscription.subscription_id,
        event_type: input.type,
        url: subscription.subscription_url,
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
      })
      .execute();
    written++;
  }
  return written;
}
