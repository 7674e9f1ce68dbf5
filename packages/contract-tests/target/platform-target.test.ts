// The platform contract suite against any server, as run by `platform-contract-tests`: the target
// comes from PLATFORM_TARGET_URL, PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET (see bin/).
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ContractClient,
  examplesPhase,
  ignoredAuthPhase,
  loadBundle,
  negativeDataPhase,
  SpecValidator,
} from '../src/index.js';

const baseUrl = process.env.PLATFORM_TARGET_URL;
const clientId = process.env.PLATFORM_CLIENT_ID;
const clientSecret = process.env.PLATFORM_CLIENT_SECRET;
const scopes = process.env.PLATFORM_SCOPES ?? 'user data chat';
if (!baseUrl || !clientId || !clientSecret) {
  throw new Error('PLATFORM_TARGET_URL, PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET are required');
}
const validator = new SpecValidator(
  loadBundle(process.env.PLATFORM_INCLUDE_INTERNAL === 'true' ? 'platform' : 'platform-public'),
);
let client: ContractClient;

beforeAll(async () => {
  const basic = { username: clientId, password: clientSecret };
  const tokenClient = new ContractClient({ validator, baseUrl, credentials: { basic } });
  const token = await tokenClient.call('getAccessToken', {
    query: { grant_type: 'client_credentials', scope: scopes },
  });
  expect(token.problems).toEqual([]);
  expect(token.status, `token request: ${token.text.slice(0, 300)}`).toBe(200);
  client = new ContractClient({
    validator,
    baseUrl,
    credentials: { bearer: (token.json as { access_token: string }).access_token, basic },
  });
});

describe(`platform API at ${baseUrl}`, () => {
  describe('examples (any documented answer below 500)', () =>
    examplesPhase(validator.operations, { client: () => client, acceptStatus: (status) => status < 500 }));
  describe('ignored_auth', () => ignoredAuthPhase(validator.operations, { client: () => client }));
  describe('negative_data_rejection', () => negativeDataPhase(validator, { client: () => client }));

  it('called every operation of the spec at least once', () => {
    expect(client.uncalled()).toEqual([]);
  });
});
