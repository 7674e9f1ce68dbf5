// The Prism mock of the site spec as a scenario target: it answers the spec's own examples, and
// `Prefer: code=N` picks the documented response. Only the repository's own tests use it (the mock is a
// dev dependency).
import { Writable } from 'node:stream';
import { startMock } from '@platform-api/mock';
import { freePort, type ScenarioTarget } from '../../../src/index.js';

export async function startPrismTarget(): Promise<ScenarioTarget & { close(): Promise<void> }> {
  let log = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      log = (log + String(chunk)).slice(-20_000);
      done();
    },
  });
  const mock = await startMock('site', { port: await freePort(), log: sink });
  return {
    name: 'prism',
    real: false,
    baseUrl: mock.url,
    // Prism only checks that Basic credentials are present.
    credentials: { basic: { username: 'contract-tests', password: 'any-application-password' } },
    version: undefined,
    close: () => mock.close(),
    logTail: () => log.slice(-4_000),
  };
}
