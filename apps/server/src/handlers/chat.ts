import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Schemas } from '../api-types.js';
import type { AuthContext } from '../auth/tokens.js';
import {
  ChannelAccess,
  type ChannelRow,
  findAccessibleChannel,
  findChannel,
  isMember,
} from '../chat/access.js';
import { type Author, findAuthor } from '../db/message-store.js';
import type { Database, MessagesTable } from '../db/schema.js';
import { ApiProblem } from '../errors.js';
import { chatEventRows, chatUser, emitChatEvent } from '../events/emit.js';
import type { Services } from '../services.js';
import { foundOr404, iso, isStorableId, locationOf, notFoundProblem, paged, paging } from './common.js';
import { type HandlerMap, requireAuth } from './types.js';

/*
 * The minimal chat domain (x-internal operations) that makes events happen: channels (public/private),
 * membership, messages, threads and slash commands. Each action writes its events in its own transaction.
 */

function channelBody(row: ChannelRow): Schemas['ChatChannel'] {
  const body: Schemas['ChatChannel'] = {
    id: row.id,
    title: row.title,
    visibility: row.visibility as Schemas['ChatChannelVisibility'],
    createdAt: iso(row.created_at),
  };
  if (row.parent_id !== null) body.parentId = row.parent_id;
  return body;
}

/** Messages with their authors, in one query. */
function messagesWithAuthors(db: Kysely<Database>) {
  return db
    .selectFrom('messages')
    .leftJoin('users', 'users.id', 'messages.author_user_id')
    .selectAll('messages')
    .select(['users.name as user_name', 'users.email as user_email']);
}

type MessageWithAuthor = Selectable<MessagesTable> & { user_name: string | null; user_email: string | null };

function messageBody(row: MessageWithAuthor): Schemas['ChatMessage'] {
  let author: Schemas['ChatMessage']['author'];
  if (row.integration_id !== null) {
    author = { integrationId: row.integration_id, displayName: row.author_name };
  } else {
    const id = row.author_user_id ?? 0;
    author =
      row.user_name !== null && row.user_email !== null
        ? chatUser({ id, name: row.user_name, email: row.user_email })
        : { id, displayName: row.author_name, email: 'unknown@invalid.example' };
  }
  return { id: row.id, channelId: row.channel_id, text: row.text, author, createdAt: iso(row.created_at) };
}

/** A stored message as the API shows it. */
export async function messageById(db: Kysely<Database>, id: string): Promise<Schemas['ChatMessage']> {
  return messageBody(await messagesWithAuthors(db).where('messages.id', '=', id).executeTakeFirstOrThrow());
}

async function caller(db: Kysely<Database>, instanceId: number, userId: number): Promise<Author> {
  return callerOr403(await findAuthor(db, instanceId, userId));
}

function callerOr403(user: Author | undefined): Author {
  // The client's user was deleted: its token still authenticates the client, but chat needs a user.
  if (!user) throw new ApiProblem(403, 'The API client acts as a user that no longer exists');
  return user;
}

/**
 * The channel, the caller and the subscriptions to MESSAGE_POSTED, as posting a message needs them (404,
 * then 403), read together by the message store.
 */
async function postingContext({ db, messages }: Services, auth: AuthContext, channelId: string) {
  const context = await messages.postingContext(auth.instanceId, auth.userId, channelId);
  // A public top-level channel is open to every user; any other goes through the access rules.
  const open = context.channel?.parent_id === null && context.channel.visibility === 'PUBLIC';
  const channel =
    open && context.channel ? context.channel : await accessibleChannelOr404(db, auth, channelId);
  return { channel, author: callerOr403(context.author), subscriptions: context.subscriptions };
}

/** The channel when the caller may see it; otherwise 404 exactly as for a missing id. */
function accessibleChannelOr404(db: Kysely<Database>, auth: AuthContext, channelId: string) {
  return foundOr404(findAccessibleChannel(db, auth.instanceId, auth.userId, channelId), 'channel', channelId);
}

export const chatHandlers = {
  async listChannels(ctx) {
    const auth = requireAuth(ctx);
    const { db } = ctx.services;
    const { limit, offset } = paging(ctx.query);
    const access = await ChannelAccess.load(db, auth.instanceId, [auth.userId], 'all');
    const channels = access
      .accessibleTo(auth.userId)
      .slice(offset, offset + limit)
      .map(channelBody);
    return { body: { channels } };
  },

  async createChannel(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock } = ctx.services;
    await caller(db, auth.instanceId, auth.userId);
    const now = clock.now();
    const row: ChannelRow = {
      id: randomUUID(),
      instance_id: auth.instanceId,
      parent_id: null,
      title: ctx.body.title,
      visibility: ctx.body.visibility ?? 'PUBLIC',
      creator_id: auth.userId,
      created_at: now,
    };
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('channels').values(row).execute();
      await trx
        .insertInto('channel_members')
        .values({ channel_id: row.id, user_id: auth.userId, joined_at: now })
        .execute();
    });
    return { body: channelBody(row), headers: locationOf(`/v1/chat/channels/${row.id}`) };
  },

  async getChannel(ctx) {
    const auth = requireAuth(ctx);
    const row = await accessibleChannelOr404(ctx.services.db, auth, ctx.params.channelId);
    return { body: channelBody(row) };
  },

  async joinChannel(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock, config } = ctx.services;
    const channel = await accessibleChannelOr404(db, auth, ctx.params.channelId);
    const userIds = ctx.body.userIds as number[];
    // Ids beyond the stored range exist nowhere (and an empty IN list is an error on PostgreSQL).
    const storable = userIds.filter(isStorableId);
    const users =
      storable.length === 0
        ? []
        : await db
            .selectFrom('users')
            .select(['id', 'name', 'email'])
            .where('instance_id', '=', auth.instanceId)
            .where('deleted_at', 'is', null)
            .where('id', 'in', storable)
            .execute();
    const found = new Set(users.map((u) => u.id));
    const unknown = userIds.filter((id) => !found.has(id));
    if (unknown.length > 0) {
      // A resource the body names does not exist: 404, as for unknown channels of an integration.
      throw new ApiProblem(404, 'Unknown users', {
        details: unknown.map((id) => ({
          field: `body.userIds.${userIds.indexOf(id)}`,
          message: `no user with id ${id}`,
        })),
      });
    }
    const now = clock.now();
    const joined = await db.transaction().execute(async (trx) => {
      // Members already there (or made so by a concurrent request) are left as they are, and not announced.
      const inserted = await trx
        .insertInto('channel_members')
        .values(users.map((user) => ({ channel_id: channel.id, user_id: user.id, joined_at: now })))
        .onConflict((conflict) => conflict.columns(['channel_id', 'user_id']).doNothing())
        .returning('user_id')
        .execute();
      const insertedIds = new Set(inserted.map((row) => row.user_id));
      const added = users.filter((user) => insertedIds.has(user.id));
      if (added.length > 0) {
        await emitChatEvent(
          trx,
          { clock, config },
          {
            instanceId: auth.instanceId,
            type: 'USERS_JOINED_CHANNEL',
            channel,
            details: { users: added.map((u) => ({ displayName: u.name, email: u.email })) },
          },
        );
      }
      return added;
    });
    return { body: { users: joined.map(chatUser) } };
  },

  async leaveChannel(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock, config } = ctx.services;
    const channel = await accessibleChannelOr404(db, auth, ctx.params.channelId);
    const userId: number = ctx.params.userId;
    const user = isStorableId(userId)
      ? await db
          .selectFrom('users')
          .select(['id', 'name', 'email'])
          .where('id', '=', userId)
          .where('instance_id', '=', auth.instanceId)
          .executeTakeFirst()
      : undefined;
    if (!user || !(await isMember(db, channel.id, user.id)))
      throw notFoundProblem('member of this channel', userId);
    await db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('channel_members')
        .where('channel_id', '=', channel.id)
        .where('user_id', '=', user.id)
        .execute();
      await emitChatEvent(
        trx,
        { clock, config },
        {
          instanceId: auth.instanceId,
          type: 'USERS_LEFT_CHANNEL',
          channel,
          details: { users: [{ displayName: user.name, email: user.email }] },
        },
      );
    });
    return {};
  },

  async postMessage(ctx) {
    const auth = requireAuth(ctx);
    const { db, messages, clock, config } = ctx.services;
    const { channel, author, subscriptions } = await postingContext(ctx.services, auth, ctx.params.channelId);
    const message = {
      id: randomUUID(),
      instance_id: auth.instanceId,
      channel_id: channel.id,
      author_user_id: author.id,
      integration_id: null,
      author_name: author.name,
      text: ctx.body.text as string,
    };
    const events = await chatEventRows(
      db,
      { clock, config },
      {
        instanceId: auth.instanceId,
        type: 'MESSAGE_POSTED',
        channel,
        details: { author: chatUser(author), message: { id: message.id, text: message.text } },
      },
      subscriptions,
    );
    const createdAt = await messages.post({ message, now: clock.now(), events });
    // What messageById would read back: the row just written, its author the caller read above.
    return {
      body: messageBody({
        ...message,
        created_at: createdAt,
        user_name: author.name,
        user_email: author.email,
      }),
    };
  },

  async listMessages(ctx) {
    const auth = requireAuth(ctx);
    const { db } = ctx.services;
    const channel = await accessibleChannelOr404(db, auth, ctx.params.channelId);
    const inOrder = messagesWithAuthors(db)
      .where('messages.channel_id', '=', channel.id)
      .orderBy('messages.created_at')
      .orderBy('messages.id');
    const rows = await paged(inOrder, ctx.query).execute();
    return { body: { messages: rows.map(messageBody) } };
  },

  async createThread(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock, config } = ctx.services;
    let parent = await accessibleChannelOr404(db, auth, ctx.params.channelId);
    // Threads do not nest: a thread started from a thread belongs to the same top-level channel.
    if (parent.parent_id !== null)
      parent = (await findChannel(db, auth.instanceId, parent.parent_id)) ?? parent;
    await caller(db, auth.instanceId, auth.userId);
    const now = clock.now();
    const thread: ChannelRow = {
      id: randomUUID(),
      instance_id: auth.instanceId,
      parent_id: parent.id,
      title: ctx.body.title,
      visibility: parent.visibility,
      creator_id: auth.userId,
      created_at: now,
    };
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('channels').values(thread).execute();
      await trx
        .insertInto('channel_members')
        .values({ channel_id: thread.id, user_id: auth.userId, joined_at: now })
        .execute();
      await emitChatEvent(
        trx,
        { clock, config },
        {
          instanceId: auth.instanceId,
          type: 'THREAD_CREATED',
          channel: parent,
          details: { thread: { id: thread.id, parentId: parent.id, title: thread.title } },
        },
      );
    });
    return { body: channelBody(thread), headers: locationOf(`/v1/chat/channels/${thread.id}`) };
  },

  async invokeSlashCommand(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock, config } = ctx.services;
    const channel = await accessibleChannelOr404(db, auth, ctx.params.channelId);
    const author = await caller(db, auth.instanceId, auth.userId);
    const commandLine = ctx.body.commandLine as string;
    const [command = ''] = commandLine.split(' ');
    await db.transaction().execute(async (trx) => {
      await emitChatEvent(
        trx,
        { clock, config },
        {
          instanceId: auth.instanceId,
          type: 'SLASH_COMMAND',
          channel,
          command,
          details: { author: chatUser(author), message: { text: commandLine } },
        },
      );
    });
    return {};
  },
} satisfies Partial<HandlerMap>;
