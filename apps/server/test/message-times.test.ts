import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp, type PlatformApp } from '../src/app.js';
import { createDatabase, type DatabaseHandle } from '../src/db/database.js';
import { apiClient, type Call } from './helpers/api.js';
import { describeEachDialect } from './helpers/databases.js';
import type { TestServer } from './helpers/server.js';
import { doc } from './helpers/spec-validator.js';
import { unlimitedServerForSuite } from './helpers/unlimited-server.js';

/*
 * Within a channel, message times strictly increase in the order of posting,
 * so listMessages lists messages as they were posted. Many posts at once share turns of the event loop
 * (and so their writes); the times must still be one per message, in order.
 */

describeEachDialect('message times on %s', (dialect) => {
  let server: TestServer;
  let token: string;

  // Request logging off (the test server's logger is silent), no rate limit: as many posts as possible
  // share a turn.
  unlimitedServerForSuite(dialect, (suite) => ({ server, token } = suite), ['chat']);

  const newChannel = async (title: string): Promise<string> =>
    (await server.call('POST', '/v1/chat/channels', { token, json: { title } })).body.id;

  const post = (call: Call, channelId: string, text: string) =>
    call('POST', `/v1/chat/channels/${channelId}/messages`, { token, json: { text } });

  const listed = async (channelId: string): Promise<Array<{ id: string; text: string; createdAt: string }>> =>
    (await server.call('GET', `/v1/chat/channels/${channelId}/messages?limit=500`, { token })).body.messages;

  /** Listed times strictly increase; each message is listed with the time its post answered. */
  function expectPostingOrder(
    list: Array<{ id: string; createdAt: string }>,
    answers: Array<{ status: number; body: { id: string; createdAt: string } }>,
  ) {
    const times = list.map((message) => Date.parse(message.createdAt));
    const notIncreasing = times.filter((time, index) => index > 0 && time <= (times[index - 1] ?? 0));
    expect(notIncreasing, 'neighbours whose times do not increase').toEqual([]);
    const answered = new Map(answers.map((answer) => [answer.body.id, answer.body.createdAt]));
    expect(list.map((message) => answered.get(message.id))).toEqual(list.map((message) => message.createdAt));
  }

  it('gives 200 messages posted at once 200 increasing times, listed in that order', async () => {
    const channelId = await newChannel('at once');
    const texts = Array.from({ length: 200 }, (_, i) => `message ${i}`);
    const answers = await Promise.all(texts.map((text) => post(server.call, channelId, text)));
    expect(answers.map((answer) => answer.status)).toEqual(texts.map(() => 201));
    // A post sent after those were answered comes after all of them.
    const last = await post(server.call, channelId, 'after them');
    const list = await listed(channelId);
    expect(list).toHaveLength(201);
    expect(list.at(-1)?.text).toBe('after them');
    expectPostingOrder(list, [...answers, last]);
  });

  it('keeps times increasing in each of several channels posted to at once', async () => {
    const channels = await Promise.all(['a', 'b', 'c'].map(newChannel));
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) => post(server.call, channels[i % 3] as string, `m${i}`)),
    );
    expect(answers.every((answer) => answer.status === 201)).toBe(true);
    for (const channelId of channels) {
      const list = await listed(channelId);
      expect(list).toHaveLength(50);
      expectPostingOrder(
        list,
        answers.filter((answer) => answer.body.channelId === channelId),
      );
    }
  });

  if (dialect === 'postgres') {
    describeSecondInstance();
  }

  /** Two server instances on one PostgreSQL database post to the same channel at once. */
  function describeSecondInstance() {
    let second: { database: DatabaseHandle; platform: PlatformApp; call: Call } | undefined;
    beforeAll(async () => {
      const { config } = server;
      const database = await createDatabase({
        dataDir: config.dataDir,
        databaseUrl: config.databaseUrl,
        databaseSchema: config.databaseSchema,
      });
      const platform = await buildApp({
        config,
        database,
        clock: server.clock,
        doc,
        logger: pino({ level: 'silent' }),
        checkWebhookTarget: async () => ({ ok: true }),
      });
      await platform.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = platform.app.server.address() as AddressInfo;
      second = { database, platform, call: apiClient(`http://127.0.0.1:${port}`) };
    });
    afterAll(async () => {
      await second?.platform.app.close();
      await second?.database.close();
    });

    it('keeps times increasing when two instances post to one channel at once', async () => {
      const channelId = await newChannel('two instances');
      const other = second?.call;
      if (!other) throw new Error('the second instance did not start');
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => post(i % 2 === 0 ? server.call : other, channelId, `m${i}`)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201));
      const list = await listed(channelId);
      expect(list).toHaveLength(200);
      expectPostingOrder(list, answers);
    });
  }
});
