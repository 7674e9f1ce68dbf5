import type { Kysely, Selectable } from 'kysely';
import { findChannel } from '../db/message-store.js';
import type { ChannelsTable, Database, IntegrationsTable } from '../db/schema.js';

/*
 * Who can see a channel, and which integrations are active on it. A thread inherits access from its
 * parent channel. A private channel is visible to its members only; to everyone else it answers exactly
 * like a missing one (404).
 */

export type ChannelRow = Selectable<ChannelsTable>;
export type IntegrationRow = Selectable<IntegrationsTable>;

export { findChannel };

/**
 * What deciding access needs, loaded in at most two queries (channels, memberships) whatever the number of
 * channels and users asked about; the rules themselves run in memory. A user can access a channel when its
 * top-level channel (a thread's parent) is PUBLIC, or when the user is a member of that channel or of the
 * thread itself.
 */
export class ChannelAccess {
  private constructor(
    private readonly channels: Map<string, ChannelRow>,
    private readonly memberships: Set<string>,
  ) {}

  /**
   * `channels`: the channels questions will be asked about (their parents are loaded too), or `all` of the
   * instance. `userIds`: the users whose memberships matter.
   */
  static async load(
    db: Kysely<Database>,
    instanceId: number,
    userIds: readonly number[],
    channels: readonly ChannelRow[] | 'all',
  ): Promise<ChannelAccess> {
    const known = new Map<string, ChannelRow>();
    if (channels === 'all') {
      const rows = await db
        .selectFrom('channels')
        .selectAll()
        .where('instance_id', '=', instanceId)
        .execute();
      for (const row of rows) known.set(row.id, row);
    } else {
      for (const channel of channels) known.set(channel.id, channel);
      const parents = [
        ...new Set(
          channels.flatMap((c) => (c.parent_id !== null && !known.has(c.parent_id) ? [c.parent_id] : [])),
        ),
      ];
      if (parents.length > 0) {
        const rows = await db
          .selectFrom('channels')
          .selectAll()
          .where('instance_id', '=', instanceId)
          .where('id', 'in', parents)
          .execute();
        for (const row of rows) known.set(row.id, row);
      }
    }
    const memberships = new Set<string>();
    const users = [...new Set(userIds)];
    if (users.length > 0 && known.size > 0) {
      let query = db
        .selectFrom('channel_members')
        .innerJoin('channels', 'channels.id', 'channel_members.channel_id')
        .select(['channel_members.channel_id', 'channel_members.user_id'])
        .where('channels.instance_id', '=', instanceId)
        .where('channel_members.user_id', 'in', users);
      if (channels !== 'all') query = query.where('channel_members.channel_id', 'in', [...known.keys()]);
      for (const row of await query.execute()) memberships.add(`${row.channel_id} ${row.user_id}`);
    }
    return new ChannelAccess(known, memberships);
  }

  /** The top-level channel a thread belongs to (the channel itself when it is not a thread). */
  rootOf(channel: ChannelRow): ChannelRow {
    return channel.parent_id === null ? channel : (this.channels.get(channel.parent_id) ?? channel);
  }

  /** The loaded channels the user can access, oldest first. */
  accessibleTo(userId: number): ChannelRow[] {
    return [...this.channels.values()]
      .filter((channel) => this.canAccess(userId, channel))
      .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  isMember(channelId: string, userId: number): boolean {
    return this.memberships.has(`${channelId} ${userId}`);
  }

  canAccess(userId: number, channel: ChannelRow): boolean {
    const root = this.rootOf(channel);
    return (
      root.visibility === 'PUBLIC' || this.isMember(root.id, userId) || this.isMember(channel.id, userId)
    );
  }

  /**
   * Whether an integration is active on a channel, by its scope: PUBLIC_CHANNELS on every channel whose
   * top-level channel is public; OWNER_ACCESS wherever its owner has access; CHANNEL_LIST on the listed
   * channels and their threads.
   */
  isActiveOn(
    integration: Pick<IntegrationRow, 'scope' | 'owner_id' | 'channel_ids'>,
    channel: ChannelRow,
  ): boolean {
    const root = this.rootOf(channel);
    switch (integration.scope) {
      case 'PUBLIC_CHANNELS':
        return root.visibility === 'PUBLIC';
      case 'OWNER_ACCESS':
        return this.canAccess(integration.owner_id, channel);
      case 'CHANNEL_LIST': {
        const ids = JSON.parse(integration.channel_ids ?? '[]') as string[];
        return ids.includes(channel.id) || ids.includes(root.id);
      }
      default:
        return false;
    }
  }
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

/** The channel when the user may see it; undefined, exactly as for a missing id, when not. */
export async function findAccessibleChannel(
  db: Kysely<Database>,
  instanceId: number,
  userId: number,
  channelId: string,
): Promise<ChannelRow | undefined> {
  const channel = await findChannel(db, instanceId, channelId);
  if (!channel) return undefined;
  // A public top-level channel is open to every user: no memberships to read.
  if (channel.parent_id === null && channel.visibility === 'PUBLIC') return channel;
  const access = await ChannelAccess.load(db, instanceId, [userId], [channel]);
  return access.canAccess(userId, channel) ? channel : undefined;
}
