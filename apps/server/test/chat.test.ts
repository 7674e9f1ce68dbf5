import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withCallbackToken } from '../src/auth/callback-tokens.js';
import { checkWebhookTarget } from '../src/delivery/ssrf.js';
import { describeEachDialect } from './helpers/databases.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { webhookPayloadProblems } from './helpers/spec-validator.js';

describeEachDialect('chat integrations, events and callbacks on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let otherUserId: number;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    token = await server.token(['chat', 'user']);
    otherUserId = (
      await server.call('POST', '/v1/users', {
        token,
        json: { name: 'Grace Hopper', email: 'grace@example.com', role: 'Participant' },
      })
    ).body.id;
  });
  afterAll(async () => server?.close());

  const outbox = () =>
    server.platform.services.db
      .selectFrom('event_deliveries')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  const clearOutbox = () => server.platform.services.db.deleteFrom('event_deliveries').execute();
  /** The body the dispatcher would send for an outbox row: the callback token minted as it does. */
  const sendable = (row: Awaited<ReturnType<typeof outbox>>[number]) =>
    withCallbackToken(server.platform.services.db, row.payload, {
      instanceId: row.instance_id,
      integrationId: row.integration_id,
      eventAt: row.created_at,
      callbackTtlMs: server.config.callbackTtlMs,
      now: server.clock.now(),
    });
  /** A chat token of a new client of the same instance that acts as the other user. */
  const tokenOfOtherUser = async () => {
    const other = await server.newClient('acme', ['chat']);
    await server.platform.services.db
      .updateTable('clients')
      .set({ user_id: otherUserId })
      .where('id', '=', other.clientId)
      .execute();
    return server.token(['chat'], other);
  };

  async function channel(title: string, visibility = 'PUBLIC') {
    const res = await server.call('POST', '/v1/chat/channels', { token, json: { title, visibility } });
    expect(res.status).toBe(201);
    return res.body as { id: string; title: string };
  }

  /** Makes the database refuse to insert a message with this text (a trigger); resolves to the undoing. */
  async function refuseMessages(text: string): Promise<() => Promise<void>> {
    const db = server.platform.services.db;
    if (dialect === 'sqlite') {
      await sql`create temp trigger refuse_text before insert on messages when new.text = ${sql.lit(text)}
        begin select raise(abort, 'refused by the test'); end`.execute(db);
      return async () => void (await sql`drop trigger refuse_text`.execute(db));
    }
    await sql`create function refuse_text() returns trigger language plpgsql as $$
      begin
        if new.text = ${sql.lit(text)} then raise exception 'refused by the test'; end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger refuse_text before insert on messages
      for each row execute function refuse_text()`.execute(db);
    return async () => {
      await sql`drop trigger refuse_text on messages`.execute(db);
      await sql`drop function refuse_text()`.execute(db);
    };
  }

  it('creates, lists and reads channels; private channels are invisible to non-members', async () => {
    const general = await channel('general');
    expect((await server.call('GET', `/v1/chat/channels/${general.id}`, { token })).body.title).toBe(
      'general',
    );
    const secret = await channel('secret', 'PRIVATE');
    const list = await server.call('GET', '/v1/chat/channels', { token });
    expect(list.body.channels.map((c: { id: string }) => c.id)).toEqual(
      expect.arrayContaining([general.id, secret.id]),
    );
    const otherToken = await tokenOfOtherUser();
    expect((await server.call('GET', `/v1/chat/channels/${secret.id}`, { token: otherToken })).status).toBe(
      404,
    );
    expect((await server.call('GET', `/v1/chat/channels/${general.id}`, { token: otherToken })).status).toBe(
      200,
    );
    expect(
      (await server.call('POST', '/v1/chat/channels', { token, json: { title: 'x', visibility: 'SECRET' } }))
        .status,
    ).toBe(400);
  });

  it('posts a message only where the caller may see the channel', async () => {
    const open = await channel('open-posts');
    const closed = await channel('closed-posts', 'PRIVATE');
    const post = (channelId: string, as: string, text: string) =>
      server.call('POST', `/v1/chat/channels/${channelId}/messages`, { token: as, json: { text } });
    const first = await post(open.id, token, 'one');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ channelId: open.id, text: 'one' });
    const second = await post(open.id, token, 'two');
    expect(Date.parse(second.body.createdAt)).toBeGreaterThan(Date.parse(first.body.createdAt));
    expect((await post(closed.id, token, 'member')).status).toBe(201);
    expect((await post(randomUUID(), token, 'nowhere')).status).toBe(404);

    const otherToken = await tokenOfOtherUser();
    expect((await post(closed.id, otherToken, 'not a member')).status).toBe(404);
    expect((await post(open.id, otherToken, 'anyone')).status).toBe(201);
  });

  it('stores each of many messages posted at once, and one that cannot be written fails alone', async () => {
    const room = await channel('all-at-once');
    const texts = Array.from({ length: 24 }, (_, i) => `at once ${i}`);
    const failing = 'at once 7';
    // The messages whose reads end in the same turn are written together (SQLite: one transaction, a
    // savepoint each; PostgreSQL: one statement): a message its insert refuses must not take the others
    // with it (the next test makes such a turn for certain).
    const allowAgain = await refuseMessages(failing);
    try {
      const answers = await Promise.all(
        texts.map((text) =>
          server.call('POST', `/v1/chat/channels/${room.id}/messages`, {
            token,
            json: { text },
            unchecked: true,
          }),
        ),
      );
      for (const [index, answer] of answers.entries()) {
        expect(answer.status, texts[index]).toBe(texts[index] === failing ? 500 : 201);
      }
      const stored = await server.platform.services.db
        .selectFrom('messages')
        .select('text')
        .where('channel_id', '=', room.id)
        .execute();
      expect(stored.map((row) => row.text).sort()).toEqual(texts.filter((text) => text !== failing).sort());
    } finally {
      await allowAgain();
    }
  });

  it('writes the messages of one turn together, where one that is refused fails alone', async () => {
    const room = await channel('together');
    const first = await server.call('POST', `/v1/chat/channels/${room.id}/messages`, {
      token,
      json: { text: 'first' },
    });
    const db = server.platform.services.db;
    const stored = await db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', first.body.id)
      .executeTakeFirstOrThrow();
    const { created_at, ...message } = stored;
    const allowAgain = await refuseMessages('refused');
    try {
      // Started in the same turn: written together (SQLite: one transaction, a savepoint each; PostgreSQL:
      // one statement, then each alone when it is refused).
      const results = await Promise.allSettled(
        ['one', 'refused', 'two'].map((text) =>
          server.platform.services.messages.post({
            message: { ...message, id: randomUUID(), text },
            now: created_at,
            events: [],
          }),
        ),
      );
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const texts = await db
        .selectFrom('messages')
        .select('text')
        .where('channel_id', '=', room.id)
        .execute();
      expect(texts.map((row) => row.text).sort()).toEqual(['first', 'one', 'two']);
    } finally {
      await allowAgain();
    }
  });

  it('enforces the iff rules of integrations and subscriptions (400)', async () => {
    const general = await channel('rules');
    const cases = [
      { name: 'a', scope: 'CHANNEL_LIST' },
      { name: 'a', scope: 'PUBLIC_CHANNELS', channelIds: [general.id] },
      { name: 'a', scope: 'EVERYWHERE' },
      { name: 'a', scope: 'PUBLIC_CHANNELS', headers: [{ name: 'bad header', value: 'x' }] },
    ];
    for (const json of cases) {
      expect(
        (await server.call('POST', '/v1/chat/integrations', { token, json })).status,
        JSON.stringify(json),
      ).toBe(400);
    }
    // A schema-valid request naming a channel that does not exist: 404, with the field in details.
    const unknown = await server.call('POST', '/v1/chat/integrations', {
      token,
      json: { name: 'a', scope: 'CHANNEL_LIST', channelIds: ['no-such-channel'] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details).toEqual([
      { field: 'body.channelIds.0', message: 'no channel with id no-such-channel' },
    ]);
    const integration = (
      await server.call('POST', '/v1/chat/integrations', {
        token,
        json: { name: 'ok', scope: 'PUBLIC_CHANNELS' },
      })
    ).body;
    const subs = [
      { eventType: 'MESSAGE_POSTED', url: 'http://hooks.example.com/x' },
      { eventType: 'MESSAGE_POSTED', url: 'https://hooks.example.com/x', slashCommand: '/deploy' },
      { eventType: 'SLASH_COMMAND', url: 'https://hooks.example.com/x' },
      { eventType: 'UNKNOWN', url: 'https://hooks.example.com/x' },
    ];
    for (const json of subs) {
      const res = await server.call('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
        token,
        json,
      });
      expect(res.status, JSON.stringify(json)).toBe(400);
    }
  });

  it('manages integrations and subscriptions (create 200, list, get, delete 204, then 404)', async () => {
    const general = await channel('ops');
    const created = await server.call('POST', '/v1/chat/integrations', {
      token,
      json: {
        name: 'Deploy bot',
        description: 'Deploys things',
        scope: 'CHANNEL_LIST',
        channelIds: [general.id],
        headers: [{ name: 'Authorization', value: 'Bearer receiver-secret' }],
        signDeliveries: true,
      },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'Deploy bot',
      scope: 'CHANNEL_LIST',
      channelIds: [general.id],
      signDeliveries: true,
    });
    expect(created.body.signingSecret).toMatch(/^whsec_/);
    const id = created.body.id;
    const read = await server.call('GET', `/v1/chat/integrations/${id}`, { token });
    expect(read.body.signingSecret).toBeUndefined();
    const list = await server.call('GET', '/v1/chat/integrations', { token });
    expect(list.body.integrations.map((i: { id: string }) => i.id)).toContain(id);
    const sub = await server.call('POST', `/v1/chat/integrations/${id}/subscriptions`, {
      token,
      json: { eventType: 'SLASH_COMMAND', url: 'https://hooks.example.com/deploy', slashCommand: 'deploy' },
    });
    expect(sub.status).toBe(200);
    expect(sub.body.slashCommand).toBe('/deploy');
    const subs = await server.call('GET', `/v1/chat/integrations/${id}/subscriptions`, { token });
    expect(subs.body.subscriptions).toEqual([sub.body]);
    expect(
      (await server.call('DELETE', `/v1/chat/integrations/${id}/subscriptions/${sub.body.id}`, { token }))
        .status,
    ).toBe(204);
    expect(
      (await server.call('DELETE', `/v1/chat/integrations/${id}/subscriptions/${sub.body.id}`, { token }))
        .status,
    ).toBe(404);
    expect(
      (await server.call('GET', `/v1/chat/integrations/${id}/subscriptions`, { token })).body.subscriptions,
    ).toEqual([]);
    expect((await server.call('DELETE', `/v1/chat/integrations/${id}`, { token })).status).toBe(204);
    expect((await server.call('GET', `/v1/chat/integrations/${id}`, { token })).status).toBe(404);
    expect((await server.call('DELETE', `/v1/chat/integrations/${id}`, { token })).status).toBe(404);
    expect((await server.call('GET', `/v1/chat/integrations/${id}/subscriptions`, { token })).status).toBe(
      404,
    );
  });

  it("shows each subscription's delivery circuit breaker: closed, open until a time, then half-open", async () => {
    const integration = (
      await server.call('POST', '/v1/chat/integrations', {
        token,
        json: { name: 'Breaker bot', scope: 'PUBLIC_CHANNELS' },
      })
    ).body;
    const path = `/v1/chat/integrations/${integration.id}/subscriptions`;
    const sub = await server.call('POST', path, {
      token,
      json: { eventType: 'MESSAGE_POSTED', url: 'https://hooks.example.com/breaker' },
    });
    expect(sub.body.circuitBreaker).toEqual({ state: 'CLOSED', consecutiveFailures: 0 });
    // As the dispatcher leaves it after 5 failed attempts (db/outbox-store.ts).
    const openUntil = server.clock.now() + 30_000;
    await server.platform.services.db
      .updateTable('subscriptions')
      .set({ breaker_failures: 5, breaker_open_until: openUntil })
      .where('id', '=', sub.body.id)
      .execute();
    const listed = async () =>
      (await server.call('GET', path, { token })).body.subscriptions[0].circuitBreaker;
    expect(await listed()).toEqual({
      state: 'OPEN',
      consecutiveFailures: 5,
      openUntil: new Date(openUntil).toISOString(),
    });
    server.clock.advance(30_000);
    expect(await listed()).toMatchObject({ state: 'HALF_OPEN', consecutiveFailures: 5 });
    await server.call('DELETE', `/v1/chat/integrations/${integration.id}`, { token });
  });

  it('writes every event to the outbox with a payload valid against the webhook schema', async () => {
    await clearOutbox();
    const room = await channel('events');
    const integration = (
      await server.call('POST', '/v1/chat/integrations', {
        token,
        json: { name: 'Listener', scope: 'PUBLIC_CHANNELS', headers: [{ name: 'X-Api-Key', value: 'k1' }] },
      })
    ).body;
    const url = 'https://hooks.example.com/events';
    for (const eventType of [
      'MESSAGE_POSTED',
      'THREAD_CREATED',
      'USERS_JOINED_CHANNEL',
      'USERS_LEFT_CHANNEL',
    ]) {
      const res = await server.call('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
        token,
        json: { eventType, url },
      });
      expect(res.status).toBe(200);
    }
    await server.call('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
      token,
      json: { eventType: 'SLASH_COMMAND', url, slashCommand: '/deploy' },
    });

    const posted = await server.call('POST', `/v1/chat/channels/${room.id}/messages`, {
      token,
      json: { text: 'hello' },
    });
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({
      channelId: room.id,
      text: 'hello',
      author: { id: server.client.userId },
    });
    server.clock.advance(10);
    const thread = await server.call('POST', `/v1/chat/channels/${room.id}/threads`, {
      token,
      json: { title: 'Release' },
    });
    expect(thread.status).toBe(201);
    expect(thread.body.parentId).toBe(room.id);
    server.clock.advance(10);
    const joined = await server.call('POST', `/v1/chat/channels/${room.id}/members`, {
      token,
      json: { userIds: [otherUserId] },
    });
    expect(joined.status).toBe(200);
    expect(joined.body.users).toEqual([
      { id: otherUserId, displayName: 'Grace Hopper', email: 'grace@example.com' },
    ]);
    const again = await server.call('POST', `/v1/chat/channels/${room.id}/members`, {
      token,
      json: { userIds: [otherUserId] },
    });
    expect(again.body.users).toEqual([]);
    // A user id that names nobody: 404 with the id, and nobody joins.
    const unknown = await server.call('POST', `/v1/chat/channels/${room.id}/members`, {
      token,
      json: { userIds: [otherUserId, 987654321] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details).toEqual([{ field: 'body.userIds.1', message: 'no user with id 987654321' }]);
    server.clock.advance(10);
    expect(
      (await server.call('DELETE', `/v1/chat/channels/${room.id}/members/${otherUserId}`, { token })).status,
    ).toBe(204);
    expect(
      (await server.call('DELETE', `/v1/chat/channels/${room.id}/members/${otherUserId}`, { token })).status,
    ).toBe(404);
    server.clock.advance(10);
    expect(
      (
        await server.call('POST', `/v1/chat/channels/${room.id}/commands`, {
          token,
          json: { commandLine: '/deploy prod' },
        })
      ).status,
    ).toBe(202);
    expect(
      (
        await server.call('POST', `/v1/chat/channels/${room.id}/commands`, {
          token,
          json: { commandLine: '/other x' },
        })
      ).status,
    ).toBe(202);
    expect(
      (
        await server.call('POST', `/v1/chat/channels/${room.id}/commands`, {
          token,
          json: { commandLine: 'no slash' },
        })
      ).status,
    ).toBe(400);

    const rows = await outbox();
    expect(rows.map((r) => r.event_type)).toEqual([
      'MESSAGE_POSTED',
      'THREAD_CREATED',
      'USERS_JOINED_CHANNEL',
      'USERS_LEFT_CHANNEL',
      'SLASH_COMMAND',
    ]);
    for (const row of rows) {
      // The outbox keeps no callback token; the payload as sent (token minted) matches the spec.
      expect(JSON.parse(row.payload).callback.headers).toEqual({});
      const payload = JSON.parse(await sendable(row));
      expect(webhookPayloadProblems(row.event_type, payload), row.event_type).toEqual([]);
      expect(payload.event).toEqual({ type: row.event_type, id: row.id });
      expect(row).toMatchObject({ status: 'pending', attempts: 0, integration_id: integration.id, url });
      expect(JSON.parse(row.headers)).toEqual([{ name: 'X-Api-Key', value: 'k1' }]);
      expect(payload.owner.id).toBe(server.client.userId);
      expect(payload.organization.domain).toBe('acme.example.com');
      expect(payload.callback.url).toBe(`${server.baseUrl}/v1/chat/bots/message/${room.id}`);
      expect(payload.callback.headers['x-chat-bot-token']).toMatch(/^[0-9a-f]{64}$/);
    }
    const slash = JSON.parse(rows[4]?.payload ?? 'null');
    expect(slash.message.text).toBe('/deploy prod');
    const threadEvent = JSON.parse(rows[1]?.payload ?? 'null');
    expect(threadEvent.thread).toEqual({ id: thread.body.id, parentId: room.id, title: 'Release' });
  });

  it('sends no event to integrations not active on the channel, or to disabled subscriptions', async () => {
    await clearOutbox();
    const privateRoom = await channel('private-room', 'PRIVATE');
    const listed = await channel('listed');
    const onList = (
      await server.call('POST', '/v1/chat/integrations', {
        token,
        json: { name: 'Listed only', scope: 'CHANNEL_LIST', channelIds: [listed.id] },
      })
    ).body;
    const sub = await server.call('POST', `/v1/chat/integrations/${onList.id}/subscriptions`, {
      token,
      json: { eventType: 'MESSAGE_POSTED', url: 'https://hooks.example.com/listed' },
    });
    await server.call('POST', `/v1/chat/channels/${privateRoom.id}/messages`, {
      token,
      json: { text: 'secret' },
    });
    let rows = await outbox();
    // Only integrations active on the private room get it: the PUBLIC_CHANNELS one must not.
    expect(rows.filter((r) => JSON.parse(r.payload).channel.id === privateRoom.id)).toEqual([]);
    await server.call('POST', `/v1/chat/channels/${listed.id}/messages`, { token, json: { text: 'listed' } });
    rows = await outbox();
    expect(rows.filter((r) => r.integration_id === onList.id).length).toBe(1);
    await server.platform.services.db
      .updateTable('subscriptions')
      .set({ disabled_at: server.clock.now() })
      .where('id', '=', sub.body.id)
      .execute();
    await clearOutbox();
    await server.call('POST', `/v1/chat/channels/${listed.id}/messages`, {
      token,
      json: { text: 'after 410' },
    });
    expect((await outbox()).filter((r) => r.integration_id === onList.id)).toEqual([]);
  });

  it('accepts a callback post-back for one hour, under the integration name', async () => {
    await clearOutbox();
    const room = await channel('callbacks');
    const bot = (
      await server.call('POST', '/v1/chat/integrations', {
        token,
        json: { name: 'Echo bot', scope: 'PUBLIC_CHANNELS' },
      })
    ).body;
    await server.call('POST', `/v1/chat/integrations/${bot.id}/subscriptions`, {
      token,
      json: { eventType: 'MESSAGE_POSTED', url: 'https://hooks.example.com/echo' },
    });
    await server.call('POST', `/v1/chat/channels/${room.id}/messages`, { token, json: { text: 'ping' } });
    const row = (await outbox()).find((r) => r.integration_id === bot.id);
    if (!row) throw new Error('no outbox row for the bot');
    const callback = JSON.parse(await sendable(row)).callback;
    const path = new URL(callback.url).pathname;
    const headers = { 'x-chat-bot-token': callback.headers['x-chat-bot-token'] };

    const posted = await server.call('POST', path, { headers, json: { content: { text: 'pong' } } });
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({
      channelId: room.id,
      text: 'pong',
      author: { integrationId: bot.id, displayName: 'Echo bot' },
    });
    const messages = await server.call('GET', `/v1/chat/channels/${room.id}/messages`, { token });
    expect(messages.body.messages.map((m: { text: string }) => m.text)).toEqual(['ping', 'pong']);

    expect((await server.call('POST', path, { json: { content: { text: 'x' } } })).status).toBe(401);
    const wrong = await server.call('POST', path, {
      headers: { 'x-chat-bot-token': 'f'.repeat(64) },
      json: { content: { text: 'x' } },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^ChatBotToken/);
    const otherChannel = await channel('elsewhere');
    expect(
      (
        await server.call('POST', `/v1/chat/bots/message/${otherChannel.id}`, {
          headers,
          json: { content: { text: 'x' } },
        })
      ).status,
    ).toBe(401);
    expect((await server.call('POST', path, { headers, json: { content: {} } })).status).toBe(400);
    expect((await server.call('POST', path, { headers, json: { text: 'x' } })).status).toBe(400);

    server.clock.advance(3_600_000);
    const expired = await server.call('POST', path, { headers, json: { content: { text: 'too late' } } });
    expect(expired.status).toBe(401);
  });

  it('lists only integrations active on channels the caller can access (and its own)', async () => {
    token = await server.token(['chat', 'user']);
    const otherToken = await tokenOfOtherUser();
    const hidden = await channel('hidden', 'PRIVATE');
    const mine = (
      await server.call('POST', '/v1/chat/integrations', {
        token,
        json: { name: 'Private one', scope: 'CHANNEL_LIST', channelIds: [hidden.id] },
      })
    ).body;
    const seen = await server.call('GET', '/v1/chat/integrations', { token: otherToken });
    expect(seen.body.integrations.map((i: { id: string }) => i.id)).not.toContain(mine.id);
    const own = await server.call('GET', '/v1/chat/integrations', { token });
    expect(own.body.integrations.map((i: { id: string }) => i.id)).toContain(mine.id);
  });
});

describeEachDialect('chat tenancy on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.close());

  it("answers another instance's channels, integrations and subscriptions like missing ones", async () => {
    const token = await server.token(['chat']);
    const room = (await server.call('POST', '/v1/chat/channels', { token, json: { title: 'acme-only' } }))
      .body;
    const integration = (
      await server.call('POST', '/v1/chat/integrations', {
        token,
        json: { name: 'i', scope: 'PUBLIC_CHANNELS' },
      })
    ).body;
    const sub = (
      await server.call('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
        token,
        json: { eventType: 'MESSAGE_POSTED', url: 'https://hooks.example.com/t' },
      })
    ).body;
    const other = await server.newClient('globex', ['chat']);
    const otherToken = await server.token(['chat'], other);
    const probes: [string, string][] = [
      ['GET', `/v1/chat/channels/${room.id}`],
      ['GET', `/v1/chat/channels/${room.id}/messages`],
      ['POST', `/v1/chat/channels/${room.id}/messages`],
      ['GET', `/v1/chat/integrations/${integration.id}`],
      ['GET', `/v1/chat/integrations/${integration.id}/subscriptions`],
      ['DELETE', `/v1/chat/integrations/${integration.id}/subscriptions/${sub.id}`],
      ['DELETE', `/v1/chat/integrations/${integration.id}`],
    ];
    for (const [method, path] of probes) {
      const res = await server.call(method, path, {
        token: otherToken,
        ...(method === 'POST' ? { json: { text: 'x' } } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await server.call('GET', '/v1/chat/channels', { token: otherToken })).body.channels).toEqual([]);
    expect(
      (await server.call('GET', '/v1/chat/integrations', { token: otherToken })).body.integrations,
    ).toEqual([]);
    const unknownChannel = await server.call('POST', '/v1/chat/integrations', {
      token: otherToken,
      json: { name: 'x', scope: 'CHANNEL_LIST', channelIds: [room.id] },
    });
    expect(unknownChannel.status).toBe(404);
    expect((await server.call('GET', `/v1/chat/integrations/${integration.id}`, { token })).status).toBe(200);
  });
});

describe('SSRF check at subscription time (sqlite)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', {}, { checkWebhookTarget });
  });
  afterAll(async () => server?.close());

  it('refuses webhook urls that resolve to non-global addresses with 400', async () => {
    const token = await server.token(['chat']);
    const integration = (
      await server.call('POST', '/v1/chat/integrations', {
        token,
        json: { name: 'ssrf', scope: 'PUBLIC_CHANNELS' },
      })
    ).body;
    for (const url of [
      'https://127.0.0.1/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest',
      'https://[::ffff:127.0.0.1]/x',
    ]) {
      const res = await server.call('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
        token,
        json: { eventType: 'MESSAGE_POSTED', url },
      });
      expect(res.status, url).toBe(400);
      expect(res.body.details[0].field).toBe('body.url');
    }
  });
});
