// The chat domain's cost does not grow with what it holds: emitting an event runs the same number of
// queries for one subscription as for twenty-five, and the lists page with limit/offset.
import { randomUUID } from 'node:crypto';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChannelRow } from '../src/chat/access.js';
import type { DatabaseHandle } from '../src/db/database.js';
import { subscriptionsTo } from '../src/db/subscriptions.js';
import { chatEventRows, emitChatEvent } from '../src/events/emit.js';
import { newUserRow } from '../src/user-rows.js';
import { describeEachDialect, freshDatabase } from './helpers/databases.js';
import type { TestServer } from './helpers/server.js';
import { unlimitedServerForSuite } from './helpers/unlimited-server.js';

/** Counts the queries run through the Kysely instance it is plugged into. */
function queryCounter(): KyselyPlugin & { count: number } {
  const counter = {
    count: 0,
    transformQuery(args: Parameters<KyselyPlugin['transformQuery']>[0]) {
      return args.node;
    },
    // Counted as they return: queries compiled once (db/compiled-query.ts) skip transformQuery.
    async transformResult(args: Parameters<KyselyPlugin['transformResult']>[0]) {
      counter.count++;
      return args.result;
    },
  };
  return counter;
}

describeEachDialect('emitting an event on %s', (dialect) => {
  let database: DatabaseHandle;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabase(dialect);
    database = fresh.database;
    cleanup = fresh.cleanup;
  });
  afterAll(async () => cleanup?.());

  /** A private channel in a new instance, with `subscriptions` MESSAGE_POSTED subscriptions: half of them
   * of OWNER_ACCESS integrations whose owners are members (active), half PUBLIC_CHANNELS (not active). */
  async function scenario(subscriptions: number) {
    const now = Date.now();
    const { id: instanceId } = await database.db
      .insertInto('instances')
      .values({ name: `emit-${randomUUID()}`, domain: 'emit.example.com', created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const channel: ChannelRow = {
      id: randomUUID(),
      instance_id: instanceId,
      parent_id: null,
      title: 'private',
      visibility: 'PRIVATE',
      creator_id: 0,
      created_at: now,
    };
    await database.db.insertInto('channels').values(channel).execute();
    let active = 0;
    for (let i = 0; i < subscriptions; i++) {
      const { id: ownerId } = await database.db
        .insertInto('users')
        .values(
          newUserRow(
            { instanceId, name: `Owner ${i}`, email: `owner${i}@emit.example.com`, role: 'Participant' },
            now,
          ),
        )
        .returning('id')
        .executeTakeFirstOrThrow();
      const ownerAccess = i % 2 === 0;
      if (ownerAccess) {
        active++;
        await database.db
          .insertInto('channel_members')
          .values({ channel_id: channel.id, user_id: ownerId, joined_at: now })
          .execute();
      }
      const integrationId = randomUUID();
      await database.db
        .insertInto('integrations')
        .values({
          id: integrationId,
          instance_id: instanceId,
          owner_id: ownerId,
          name: `Integration ${i}`,
          description: null,
          scope: ownerAccess ? 'OWNER_ACCESS' : 'PUBLIC_CHANNELS',
          channel_ids: null,
          headers: '[]',
          signing_secret: null,
          created_at: now,
        })
        .execute();
      await database.db
        .insertInto('subscriptions')
        .values({
          id: randomUUID(),
          instance_id: instanceId,
          integration_id: integrationId,
          event_type: 'MESSAGE_POSTED',
          url: 'https://receiver.example.com/hook',
          slash_command: null,
          disabled_at: null,
          created_at: now + i,
        })
        .execute();
    }
    return { instanceId, channel, active };
  }

  async function emitCounted(subscriptions: number) {
    const { instanceId, channel, active } = await scenario(subscriptions);
    const counter = queryCounter();
    const written = await database.db
      .withPlugin(counter)
      .transaction()
      .execute((trx) =>
        emitChatEvent(
          trx,
          { clock: { now: () => Date.now() }, config: { publicUrl: 'http://localhost:3000' } },
          {
            instanceId,
            type: 'MESSAGE_POSTED',
            channel,
            details: {
              author: { id: 1, displayName: 'Ada', email: 'ada@emit.example.com' },
              message: { id: randomUUID(), text: 'hello' },
            },
          },
        ),
      );
    return { written, active, queries: counter.count };
  }

  it('reads the same subscriptions for a posted message as for any event (the message store reads them with the channel and the caller)', async () => {
    const { instanceId, channel } = await scenario(25);
    const context = await database.messages.postingContext(instanceId, 0, channel.id);
    expect(context.channel).toEqual(channel);
    expect(context.author).toBeUndefined();
    const alone = await subscriptionsTo(database.db, instanceId, 'MESSAGE_POSTED');
    expect(alone).toHaveLength(25);
    expect(context.subscriptions).toEqual(alone);
    const services = { clock: { now: () => 1_000 }, config: { publicUrl: 'http://localhost:3000' } };
    const input = {
      instanceId,
      type: 'MESSAGE_POSTED' as const,
      channel,
      details: {
        author: { id: 1, displayName: 'Ada', email: 'ada@emit.example.com' },
        message: { id: 'm-1', text: 'hello' },
      },
    };
    expect(await chatEventRows(database.db, services, input, context.subscriptions)).toHaveLength(13);
  });

  it('gives each of several messages posted at once its own context: its instance, channel and caller', async () => {
    const first = await scenario(3);
    const second = await scenario(1);
    const [author] = await database.db
      .insertInto('users')
      .values(
        newUserRow(
          { instanceId: first.instanceId, name: 'Ada', email: 'ada@emit.example.com', role: 'Participant' },
          0,
        ),
      )
      .returning(['id', 'name', 'email'])
      .execute();
    if (!author) throw new Error('no user was inserted');
    // Asked in one turn: on PostgreSQL they are read by one query, and each must get its own answer.
    const [a, b, missing, elsewhere] = await Promise.all([
      database.messages.postingContext(first.instanceId, author.id, first.channel.id),
      database.messages.postingContext(second.instanceId, author.id, second.channel.id),
      database.messages.postingContext(first.instanceId, author.id, randomUUID()),
      database.messages.postingContext(second.instanceId, author.id, first.channel.id),
    ]);
    expect(a).toEqual({
      channel: first.channel,
      author,
      subscriptions: await subscriptionsTo(database.db, first.instanceId, 'MESSAGE_POSTED'),
    });
    expect(a?.subscriptions).toHaveLength(3);
    // The user belongs to the first instance only, and each instance sees only its own channel.
    expect(b).toEqual({
      channel: second.channel,
      author: undefined,
      subscriptions: await subscriptionsTo(database.db, second.instanceId, 'MESSAGE_POSTED'),
    });
    expect(b?.subscriptions).toHaveLength(1);
    expect(missing).toEqual({ ...a, channel: undefined });
    expect(elsewhere).toEqual({ ...b, channel: undefined });
  });

  it('runs the same number of queries for 1 and for 25 subscriptions, and writes a row per active one', async () => {
    const one = await emitCounted(1);
    const many = await emitCounted(25);
    expect(one.written).toBe(one.active);
    expect(many.written).toBe(many.active);
    expect(many.written).toBe(13);
    expect(many.queries).toBe(one.queries);
    // The subscriptions with their integrations, owners and instance; the owners' memberships; the insert.
    expect(many.queries).toBe(3);
  });
});

describeEachDialect('chat lists page on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  unlimitedServerForSuite(dialect, (suite) => ({ server, token } = suite), ['chat']);

  it('pages channels and messages with limit and offset, oldest first', async () => {
    const titles = ['one', 'two', 'three', 'four', 'five'];
    for (const title of titles) {
      // Channels are ordered by creation time (then id): let time pass between them.
      server.clock.advance(1);
      await server.call('POST', '/v1/chat/channels', { token, json: { title } });
    }
    const page = async (query: string) =>
      (await server.call('GET', `/v1/chat/channels${query}`, { token })).body.channels.map(
        (channel: { title: string }) => channel.title,
      );
    expect(await page('')).toEqual(titles);
    expect(await page('?limit=2')).toEqual(['one', 'two']);
    expect(await page('?limit=2&offset=2')).toEqual(['three', 'four']);
    expect(await page('?offset=4')).toEqual(['five']);
    expect(await page('?offset=5')).toEqual([]);
    expect(await page('?limit=0')).toEqual([]);

    const channel = (await server.call('POST', '/v1/chat/channels', { token, json: { title: 'talk' } })).body;
    const texts = ['a', 'b', 'c'];
    for (const text of texts) {
      await server.call('POST', `/v1/chat/channels/${channel.id}/messages`, { token, json: { text } });
    }
    const messages = async (query: string) =>
      (
        await server.call('GET', `/v1/chat/channels/${channel.id}/messages${query}`, { token })
      ).body.messages.map((message: { text: string; author: { displayName: string } }) => message.text);
    expect(await messages('')).toEqual(texts);
    expect(await messages('?limit=1&offset=1')).toEqual(['b']);
    expect(await messages('?offset=3')).toEqual([]);
    const bad = await server.call('GET', `/v1/chat/channels/${channel.id}/messages?limit=501`, { token });
    expect(bad.status).toBe(400);
  });
});
