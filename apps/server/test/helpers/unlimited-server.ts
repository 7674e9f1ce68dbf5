import { afterAll, beforeAll } from 'vitest';
import type { Dialect } from '../../src/db/schema.js';
import { startTestServer, type TestServer } from './server.js';

/** A suite's test server, and a token of its client. */
export interface SuiteServer {
  server: TestServer;
  token: string;
}

/**
 * A test server without a rate limit (a suite that walks every operation sends more requests than a window
 * allows), started before the suite's tests and closed after them. `started` is given it with a token of
 * `scopes` (default: every scope of the client).
 */
export function unlimitedServerForSuite(
  dialect: Dialect,
  started: (suite: SuiteServer) => void,
  scopes?: string[],
): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(dialect, { rateLimit: { max: 0, windowMs: 60_000 } });
    started({ server, token: await server.token(scopes) });
  });
  afterAll(async () => server?.close());
}
