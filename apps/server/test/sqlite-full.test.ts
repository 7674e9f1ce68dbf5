import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from './helpers/api.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { schemaProblems } from './helpers/spec-validator.js';

/*
 * SQLite out of room on any machine: `PRAGMA max_page_count` makes the server's own connection answer
 * SQLITE_FULL, "database or disk is full". A real full disk (test/storage-faults.test.ts, root only) also
 * makes SQLite roll the transaction back by itself, which this limit does not: the rollback that used to
 * hide the cause ("cannot rollback - no transaction is active") is checked there.
 */
describe('SQLite refusing to grow', () => {
  let server: TestServer;
  let token: string;
  const lines: Array<{ msg?: string; err?: { message?: string } }> = [];

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    server = await startTestServer('sqlite', {}, { logger });
    token = await server.token(['user']);
  });
  afterAll(async () => server?.close());

  it('answers writes 503 + Retry-After and logs the real cause once, reads keep working', async () => {
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(server.database.db);
    await sql.raw(`PRAGMA max_page_count = ${rows[0]?.page_count}`).execute(server.database.db);
    const answers: ApiResponse[] = [];
    // Until a page fills up, an insert may still fit.
    for (let n = 0; n < 500 && !answers.some((a) => a.status === 503); n++) {
      answers.push(
        await server.call('POST', '/v1/users?sendInvite=false', {
          token,
          json: { name: `User ${n} ${'y'.repeat(40)}`, email: `full${n}@example.com`, role: 'Participant' },
        }),
      );
    }
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(schemaProblems('ApiError', answer.body)).toEqual([]);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await server.call('GET', '/v1/users?limit=5&offset=0', { token })).status).toBe(200);

    const messages = lines.map((line) => `${line.msg ?? ''} ${line.err?.message ?? ''}`);
    expect(messages.filter((m) => m.includes('refuses writes (database or disk is full)'))).toHaveLength(1);
    expect(messages.filter((m) => m.includes('cannot rollback'))).toEqual([]);
    expect(messages.filter((m) => m.includes('unhandled error'))).toEqual([]);
  });
});
