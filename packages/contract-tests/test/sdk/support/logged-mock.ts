// The platform mock (apps/mock, with memory) with its answers read back: with a log, it writes one line
// per answer (`mock: GET /oauth/token?… 200 state`). That is how the SDK tests count the requests the
// mock received, token requests among them, on the serving side — as logged-server.ts does for the
// reference server. Prism's own log no longer sees them all: reads are answered from memory.
import { randomBytes, randomUUID } from 'node:crypto';
import { startMock } from '@platform-api/mock';
import { freePort } from '../../../src/index.js';
import type { LoggedRequest } from './logged-server.js';

export interface LoggedMock {
  url: string;
  /** `host:port`. */
  host: string;
  /**
   * A client of this run's own: the mock takes any client id at its token endpoint and keeps one tenant
   * per client id, so a fresh one starts from the spec's examples and sees no other run's writes.
   */
  credentials: { clientId: string; clientSecret: string };
  /** Every request the mock answered since it started, in the order of its answers. */
  requests(): LoggedRequest[];
  close(): Promise<void>;
}

/**
 * The answer lines of a mock's log: method, path and query as asked, status (who answered is dropped).
 * Its other lines (event deliveries: `mock: event MESSAGE_POSTED …`) are no requests it received.
 */
function mockAnswers(log: string): LoggedRequest[] {
  return [...log.matchAll(/^mock: ([A-Z]+) (\S+) (\d{3}) /gm)].map(([, method = '', url = '', status]) => ({
    method,
    url,
    status: Number(status),
  }));
}

export async function startLoggedMock(): Promise<LoggedMock> {
  // The mock writes each answer line whole; Prism's output, in the same stream, is left out (a chunk of
  // it need not end a line).
  let answers = '';
  const mock = await startMock('platform', {
    port: await freePort(),
    log: {
      write: (chunk: string | Uint8Array) => {
        const text = chunk.toString();
        if (text.startsWith('mock: ')) answers += text;
        return true;
      },
    } as NodeJS.WritableStream,
  });
  return {
    url: mock.url,
    host: new URL(mock.url).host,
    credentials: { clientId: `sdk-${randomUUID()}`, clientSecret: randomBytes(24).toString('base64url') },
    requests: () => mockAnswers(answers),
    close: () => mock.close(),
  };
}
