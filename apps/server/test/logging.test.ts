import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newTraceId } from '../src/errors.js';
import { createLogger, prettyDestination, withDeferredChildren } from '../src/logger.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describe('logs (sqlite)', () => {
  let server: TestServer;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    server = await startTestServer('sqlite', {}, { logger: createLogger('trace', sink) });
  });
  afterAll(async () => server?.close());

  it('carry the trace id of every request and never a secret', async () => {
    const token = await server.token();
    const res = await server.call('GET', '/v1/users/424242', { token });
    expect(res.status).toBe(404);
    await server.call('POST', '/v1/chat/bots/message/x', {
      headers: { 'x-chat-bot-token': 'a'.repeat(64) },
      json: { content: { text: 'hi' } },
    });
    // A client that puts its token in the URL (the API never reads it there) still does not get it logged.
    await server.call(
      'GET',
      `/v1/users?limit=1&access_token=${token}&Client_Secret=${server.client.clientSecret}`,
      {
        token,
      },
    );
    const log = lines.join('');
    expect(log).toContain(res.body.toe);
    expect(log).toContain('access_token=[redacted]');
    for (const secret of [
      token,
      server.client.clientSecret,
      Buffer.from(`${server.client.clientId}:${server.client.clientSecret}`).toString('base64'),
      'a'.repeat(64),
    ]) {
      expect(log).not.toContain(secret);
    }
  });

  it('redacts credentials even when a request object with headers is logged', () => {
    const captured: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _e, done) {
          captured.push(chunk.toString());
          done();
        },
      }),
    );
    logger.info(
      {
        req: { headers: { authorization: 'Bearer s3cret', 'x-chat-bot-token': 'b'.repeat(64) } },
        client: { clientSecret: 'hunter2' },
      },
      'x',
    );
    logger.warn({ clientSecret: 'top-level-hunter3', password: 'pw-hunter4' }, 'y');
    const text = captured.join('');
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('b'.repeat(64));
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('hunter3');
    expect(text).not.toContain('hunter4');
    expect(text).toContain('[redacted]');
  });
});

describe('development logs (--log-format pretty, sqlite)', () => {
  let server: TestServer;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    server = await startTestServer('sqlite', {}, { logger: createLogger('info', prettyDestination(sink)) });
  });
  afterAll(async () => server?.close());

  it('show one short line per request, no health or readiness poll, and no secret', async () => {
    const token = await server.token();
    lines.length = 0;
    await server.call('GET', '/healthz');
    await server.call('GET', '/readyz');
    await server.call('GET', `/v1/users/424242?access_token=${token}`, { token });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}GET \/v1\/users\/424242\?access_token=\[redacted\] → 404 \(\d+ ms\)$/,
    );
    expect(lines.join('\n')).not.toContain(token);
  });
});

describe('request loggers', () => {
  it('are made when something is first logged at a level that is on, with the request id', () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    const parent = createLogger('warn', sink);
    const child = vi.spyOn(parent, 'child');
    const requestLog = withDeferredChildren(parent).child({ reqId: 'R1' }, {});
    requestLog.info('not at this level');
    requestLog.debug({ a: 1 }, 'nor this');
    expect(child).not.toHaveBeenCalled();
    expect(requestLog.level).toBe('warn');
    requestLog.warn({ client: { clientSecret: 'hidden' } }, 'first');
    requestLog.error('second');
    expect(child).toHaveBeenCalledTimes(1);
    // With options of its own (a level), a child is made at once.
    expect(withDeferredChildren(parent).child({ reqId: 'R2' }, { level: 'info' }).level).toBe('info');
    expect(
      lines.map((line) => [line.reqId, line.msg, (line.client as { clientSecret?: string })?.clientSecret]),
    ).toEqual([
      ['R1', 'first', '[redacted]'],
      ['R1', 'second', undefined],
    ]);
  });
});

it("trace ids (request ids) have the service's shape and do not repeat", () => {
  const ids = Array.from({ length: 1000 }, () => newTraceId());
  for (const id of ids) expect(id).toMatch(/^[A-Z0-9]{10}-[A-Z0-9]{5}-[A-Z0-9]{5}$/);
  expect(new Set(ids).size).toBe(ids.length);
});
