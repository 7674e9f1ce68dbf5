// The platform contract suite against the Prism mock of the bundled platform spec.
import { startMock } from '@platform-api/mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContractClient,
  examplesPhase,
  freePort,
  ignoredAuthPhase,
  loadBundle,
  negativeDataPhase,
  SpecValidator,
} from '../../src/index.js';

const validator = new SpecValidator(loadBundle('platform'));
let mock: Awaited<ReturnType<typeof startMock>>;
let client: ContractClient;

beforeAll(async () => {
  mock = await startMock('platform', { port: await freePort() });
  client = new ContractClient({
    validator,
    baseUrl: mock.url,
    // Prism checks that credentials are present, not that they are valid.
    credentials: {
      bearer: 'mock-token',
      basic: { username: 'client-id', password: 'client-secret' },
      apiKeys: { 'x-chat-bot-token': 'a'.repeat(64) },
    },
  });
});
afterAll(() => mock?.close());

describe('platform API on the Prism mock', () => {
  describe('examples', () => examplesPhase(validator.operations, { client: () => client }));
  describe('ignored_auth', () => ignoredAuthPhase(validator.operations, { client: () => client }));
  describe('negative_data_rejection', () => negativeDataPhase(validator, { client: () => client }));

  it('called every operation of the spec at least once', () => {
    expect(client.uncalled()).toEqual([]);
  });
});
