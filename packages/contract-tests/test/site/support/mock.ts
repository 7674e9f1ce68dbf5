// The site mock (apps/mock) as a scenario target: with memory (what it is sent persists, the Basic user is
// the tenant), or started stateless (Prism's examples, any credential; `Prefer: code=N` picks the
// documented response). Only the repository's own tests start it (the mock is a dev dependency).
import { Writable } from 'node:stream';
import { startMock } from '@platform-api/mock';
import { freePort, type ScenarioTarget } from '../../../src/index.js';

export type MockTarget = ScenarioTarget & { close(): Promise<void> };

export async function startMockTarget(options: { stateless?: boolean } = {}): Promise<MockTarget> {
  let log = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      log = (log + String(chunk)).slice(-20_000);
      done();
    },
  });
  const stateless = options.stateless === true;
  const mock = await startMock('site', { port: await freePort(), log: sink, stateless });
  return {
    name: stateless ? 'the stateless site mock' : 'the site mock (with memory)',
    kind: stateless ? 'stateless-mock' : 'mock',
    baseUrl: mock.url,
    // With memory the user is the tenant (its first password sticks); stateless, any credential passes.
    credentials: { basic: { username: 'contract-tests', password: 'an application password' } },
    version: undefined,
    close: () => mock.close(),
    logTail: () => log.slice(-4_000),
  };
}
