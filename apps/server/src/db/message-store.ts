import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { compiledQuery } from './compiled-query.js';
import type { ChannelsTable, Database, EventDeliveriesTable, MessagesTable } from './schema.js';
import { type SubscriptionRow, subscriptionsOf, subscriptionsTo } from './subscriptions.js';
import { batch, fulfilled, type ItemResults } from './turn-batch.js';

/*
 * Chat messages as they are posted: each with the outbox rows of its event, and its time. The times of a
 * channel strictly increase in the order of writing, so that listing by time lists in the order of
 * posting: each write takes the channel's next time from `channel_message_times` (at least `now`), in the
 * same statement or transaction that inserts the message. The messages posted in the same turn of the
 * event loop are written together (turn-batch.ts): on PostgreSQL by one statement, on SQLite in one
 * transaction, a savepoint each. On PostgreSQL their posting contexts are read together too.
 */

/** A message to post: its row without a time, the earliest time it may get, its outbox rows. */
export interface PostedMessage {
  message: Omit<MessagesTable, 'created_at'>;
  now: number;
  events: ReadonlyArray<Insertable<EventDeliveriesTable>>;
}

/** A user who posts, as a message shows its author. */
export type Author = { id: number; name: string; email: string };

/**
 * What posting a message reads: the channel (undefined when the instance has none with that id), the
 * caller (undefined when deleted), and the instance's subscriptions to MESSAGE_POSTED.
 */
export interface PostingContext {
  channel: Selectable<ChannelsTable> | undefined;
  author: Author | undefined;
  subscriptions: SubscriptionRow[];
}

export interface MessageStore {
  postingContext(instanceId: number, userId: number, channelId: string): Promise<PostingContext>;
  /** Writes the message and its outbox rows together; resolves with the message's time once committed. */
  post(posted: PostedMessage): Promise<number>;
}

export function sqliteMessageStore(db: Kysely<Database>): MessageStore {
  return {
    // Three reads, each compiled once: SQLite answers them without a round trip.
    async postingContext(instanceId, userId, channelId) {
      const channel = await findChannel(db, instanceId, channelId);
      const author = await findAuthor(db, instanceId, userId);
      return { channel, author, subscriptions: await subscriptionsTo(db, instanceId, 'MESSAGE_POSTED') };
    },
    post: batch((items: PostedMessage[]) => postInOneTransaction(db, items)),
  };
}

export function postgresMessageStore(db: Kysely<Database>): MessageStore {
  const readContext = batch((requests: PostingRequest[]) => postingContextsAtOnce(db, requests));
  return {
    postingContext: (instanceId, userId, channelId) => readContext({ instanceId, userId, channelId }),
    post: batch((items: PostedMessage[]) => postInOneStatement(db, items)),
  };
}

// Read by every chat request: compiled once (compiled-query.ts).
const selectChannel = compiledQuery((db: Kysely<Database>, channelId: string, instanceId: number) =>
  db.selectFrom('channels').selectAll().where('id', '=', channelId).where('instance_id', '=', instanceId),
);

/** The instance's channel (or thread) with this id. */
export async function findChannel(
  db: Kysely<Database>,
  instanceId: number,
  channelId: string,
): Promise<Selectable<ChannelsTable> | undefined> {
  return (await selectChannel(db, channelId, instanceId)).rows[0];
}
const selectAuthor = compiledQuery((db: Kysely<Database>, userId: number, instanceId: number) =>
  db
    .selectFrom('users')
    .select(['id', 'name', 'email'])
    .where('id', '=', userId)
    .where('instance_id', '=', instanceId)
    .where('deleted_at', 'is', null),
);

/** The instance's user who is not deleted, as a message shows its author. */
export async function findAuthor(
  db: Kysely<Database>,
  instanceId: number,
  userId: number,
): Promise<Author | undefined> {
  return (await selectAuthor(db, userId, instanceId)).rows[0];
}

/** Who posts where: what a posting context is read for. */
interface PostingRequest {
  instanceId: number;
  userId: number;
  channelId: string;
}

/**
 * PostgreSQL: the posting contexts of a turn's messages in one round trip, instead of three reads each.
 * Each round trip is a socket write that wakes a backend: on PostgreSQL the largest share of a post's CPU.
 * Subscriptions are read once per instance of the turn. One SQL text, compiled once, whatever the number.
 */
const selectPostingContexts = compiledQuery((db: Kysely<Database>, requests: string) => {
  const query = sql<{
    channel: Selectable<ChannelsTable> | null;
    author: Author | null;
    subscriptions: SubscriptionRow[];
  }>`
    with requests as (
      select (item->>'instanceId')::integer as instance_id, (item->>'userId')::integer as user_id,
        item->>'channelId' as channel_id, position
      from jsonb_array_elements(${requests}::jsonb) with ordinality as posted(item, position)
    ), subscribed as (
      select instance.instance_id, ${jsonArrayFrom(
        subscriptionsOf(db, sql.ref<number>('instance.instance_id'), 'MESSAGE_POSTED'),
      )} as subscriptions
      from (select distinct instance_id from requests) as instance
    )
    select
      (select row_to_json(c) from channels c where c.id = r.channel_id and c.instance_id = r.instance_id)
        as channel,
      (select json_build_object('id', u.id, 'name', u.name, 'email', u.email) from users u
        where u.id = r.user_id and u.instance_id = r.instance_id and u.deleted_at is null) as author,
      s.subscriptions
    from requests r join subscribed s using (instance_id)
    order by r.position`;
  return { compile: () => query.compile(db) };
});

async function postingContextsAtOnce(
  db: Kysely<Database>,
  requests: PostingRequest[],
): Promise<ItemResults<PostingContext>> {
  const { rows } = await selectPostingContexts(db, JSON.stringify(requests));
  if (rows.length !== requests.length) throw new Error('the posting context query lost a request');
  return fulfilled(
    rows.map((row) => ({
      channel: row.channel ?? undefined,
      author: row.author ?? undefined,
      subscriptions: row.subscriptions,
    })),
  );
}

const takeNextTime = compiledQuery((db: Kysely<Database>, channelId: string, now: number) =>
  db
    .insertInto('channel_message_times')
    .values({ channel_id: channelId, last_at: now })
    .onConflict((conflict) =>
      conflict
        .column('channel_id')
        .doUpdateSet({ last_at: sql<number>`max(channel_message_times.last_at + 1, excluded.last_at)` }),
    )
    .returning('last_at'),
);
const insertMessage = compiledQuery((db: Kysely<Database>, ...values: MessageValues) => {
  const [id, instanceId, channelId, authorUserId, integrationId, authorName, text, createdAt] = values;
  return db.insertInto('messages').values({
    id,
    instance_id: instanceId,
    channel_id: channelId,
    author_user_id: authorUserId,
    integration_id: integrationId,
    author_name: authorName,
    text,
    created_at: createdAt,
  });
});
type MessageValues = [
  id: string,
  instanceId: number,
  channelId: string,
  authorUserId: number | null,
  integrationId: string | null,
  authorName: string,
  text: string,
  createdAt: number,
];

async function postAlone(trx: Kysely<Database>, { message, now, events }: PostedMessage): Promise<number> {
  const [taken] = (await takeNextTime(trx, message.channel_id, now)).rows;
  if (!taken) throw new Error('no message time was taken');
  const time = Number(taken.last_at);
  const { id, instance_id, channel_id, author_user_id, integration_id, author_name, text } = message;
  await insertMessage(
    trx,
    id,
    instance_id,
    channel_id,
    author_user_id,
    integration_id,
    author_name,
    text,
    time,
  );
  if (events.length > 0)
    await trx
      .insertInto('event_deliveries')
      .values([...events])
      .execute();
  return time;
}

/**
 * SQLite: one transaction for the turn's messages, each within a savepoint of its own, so one commit (its
 * WAL write, the largest single cost of a small write there) serves them all while one that fails still
 * fails alone; a failed commit fails them all, as it would have each.
 */
async function postInOneTransaction(
  db: Kysely<Database>,
  items: PostedMessage[],
): Promise<ItemResults<number>> {
  return db.transaction().execute(async (trx) => {
    const [only] = items;
    if (only && items.length === 1) return fulfilled([await postAlone(trx, only)]);
    const results: ItemResults<number> = [];
    for (const item of items) {
      await sql`savepoint posting`.execute(trx);
      try {
        results.push({ status: 'fulfilled', value: await postAlone(trx, item) });
      } catch (error) {
        // Some errors (a full disk, an I/O error) end the whole transaction in SQLite: then the savepoint
        // is gone, and that error fails every message of the turn.
        await sql`rollback to posting`.execute(trx).catch(() => {
          throw error;
        });
        results.push({ status: 'rejected', reason: error });
      }
      await sql`release posting`.execute(trx);
    }
    return results;
  });
}

/**
 * PostgreSQL: the turn's messages and their outbox rows in one statement — one round trip, one commit,
 * one wake-up of the outbox's listeners (its trigger fires per statement). Each channel's time row is
 * advanced once by the number of its messages, and they take its times in the order posted. The rows
 * travel as one JSON parameter per table, so the SQL text is one of two, whatever the number.
 */
async function postInOneStatement(
  db: Kysely<Database>,
  items: PostedMessage[],
): Promise<ItemResults<number>> {
  const messages = JSON.stringify(items.map(({ message, now }) => ({ ...message, created_at: now })));
  const events = items.flatMap((item) => item.events);
  const writeEvents =
    events.length === 0
      ? sql``
      : sql`, outbox as (insert into event_deliveries
          select * from jsonb_populate_recordset(null::event_deliveries, ${JSON.stringify(events)}::jsonb))`;
  const { rows } = await sql<{ id: string; created_at: number }>`
    with posted as (
      select * from jsonb_populate_recordset(null::messages, ${messages}::jsonb) with ordinality
    ), per_channel as (
      select channel_id, count(*) as n, max(created_at) as now from posted group by channel_id
    ), times as (
      insert into channel_message_times as t (channel_id, last_at)
      select channel_id, now + n - 1 from per_channel order by channel_id
      on conflict (channel_id) do update set last_at = greatest(
        t.last_at + (select n from per_channel where per_channel.channel_id = t.channel_id), excluded.last_at)
      returning channel_id, last_at
    ), inserted as (
      insert into messages (id, instance_id, channel_id, author_user_id, integration_id, author_name, text,
        created_at)
      select p.id, p.instance_id, p.channel_id, p.author_user_id, p.integration_id, p.author_name, p.text,
        t.last_at - c.n + row_number() over (partition by p.channel_id order by p.ordinality)
      from posted p join per_channel c using (channel_id) join times t using (channel_id)
      returning id, created_at
    )${writeEvents}
    select id, created_at from inserted`.execute(db);
  const times = new Map(rows.map((row) => [row.id, Number(row.created_at)]));
  return items.map(({ message }) => {
    const time = times.get(message.id);
    return time === undefined
      ? { status: 'rejected', reason: new Error('the message was not written') }
      : { status: 'fulfilled', value: time };
  });
}
