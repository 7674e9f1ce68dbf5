import type { Kysely, Selectable } from 'kysely';
import type { ChannelsTable, Database, IntegrationsTable } from '../db/database.js';
import { notFoundProblem } from './common.js';

/*
 * Who can see a channel, and which integrations are active on it. A thread inherits access from its
 * parent channel. A private channel is visible to its members only; to everyone else it answers exactly
 * like a missing one (404).
 */

export type ChannelRow = Selectable<ChannelsTable>;
export type IntegrationRow = Selectable<IntegrationsTable>;

export async function findChannel(db: Kysely<Database>, instanceId: number, channelId: string) {
  return db
    .selectFrom('channels')
    .selectAll()
    .where('id', '=', channelId)
    .where('instance_id', '=', instanceId)
    .executeTakeFirst();
}

/** The top-level channel a thread belongs to (the channel itself when it is not a thread). */
export async function rootOf(db: Kysely<Database>, channel: ChannelRow): Promise<ChannelRow> {
  if (channel.parent_id === null) return channel;
  return (await findChannel(db, channel.instance_id, channel.parent_id)) ?? channel;
}

export async function isMember(db: Kysely<Database>, channelId: string, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('channel_members')
    .select('user_id')
    .where('channel_id', '=', channelId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function canAccess(db: Kysely<Database>, userId: number, channel: ChannelRow): Promise<boolean> {
  const root = await rootOf(db, channel);
  if (root.visibility === 'PUBLIC') return true;
  return (await isMember(db, root.id, userId)) || (await isMember(db, channel.id, userId));
}

/** The channel when the caller may see it; otherwise 404 exactly as for a missing id. */
export async function accessibleChannelOr404(
  db: Kysely<Database>,
  instanceId: number,
  userId: number,
  channelId: string,
): Promise<ChannelRow> {
  const channel = await findChannel(db, instanceId, channelId);
  if (!channel || !(await canAccess(db, userId, channel))) throw notFoundProblem('channel', channelId);
  return channel;
}

/** Whether an integration is active on a channel (section 2.3: PUBLIC_CHANNELS, OWNER_ACCESS, CHANNEL_LIST). */
export async function isActiveOn(
  db: Kysely<Database>,
  integration: IntegrationRow,
  channel: ChannelRow,
): Promise<boolean> {
  const root = await rootOf(db, channel);
  switch (integration.scope) {
    case 'PUBLIC_CHANNELS':
      return root.visibility === 'PUBLIC';
    case 'OWNER_ACCESS':
      return canAccess(db, integration.owner_id, channel);
    case 'CHANNEL_LIST': {
      const ids = JSON.parse(integration.channel_ids ?? '[]') as string[];
      return ids.includes(channel.id) || ids.includes(root.id);
    }
    default:
      return false;
  }
}
