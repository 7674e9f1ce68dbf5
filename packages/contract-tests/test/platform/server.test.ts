// The platform contract run against the reference server (apps/server), as a black box on SQLite and on
// PostgreSQL: every phase (examples, coverage, fuzz, stateful through the spec's links, transport, and
// the webhooks a real HTTPS receiver gets), with a fixed seed so CI is reproducible (CONTRACT_TESTS_SEED
// picks another), and again with a fresh random one (printed), so that each run tries requests no earlier
// one did. Reports go to test-results/. The token endpoint's own rules
// (grant types, scopes) are checked by hand below: no schema says them.

import { deliveringTo } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallOptions,
  type CallResult,
  ContractClient,
  failuresOf,
  formatSummary,
  loadBundle,
  PHASES,
  platformScopes,
  randomSeed,
  runContractTests,
  type SelfSignedCertificate,
  SpecValidator,
  selfSignedCertificate,
  webhooksPhase,
  writeReports,
} from '../../src/index.js';
import { describeFailure, reportFiles, testSeed } from '../support/run.js';
import {
  type ReferenceServer,
  referenceServerDatabases,
  startReferenceServer,
} from './support/reference-server.js';

const validator = new SpecValidator(loadBundle('platform'));
const allScopes = ['user', 'data', 'chat'];
const seed = testSeed();

const databases = await referenceServerDatabases('platform contract suite against the reference server');

describe.each(databases)('platform API on the reference server (%s)', (database) => {
  let server: ReferenceServer;
  let client: ContractClient;
  let otherTenant: ContractClient;
  let dataOnly: ContractClient;
  let credentials: { clientId: string; clientSecret: string };
  let tls: SelfSignedCertificate | undefined;

  /** A client whose bearer token is fetched through the spec's own token operation. */
  async function clientFor(
    creds: { clientId: string; clientSecret: string },
    scopes: string[],
  ): Promise<ContractClient> {
    const tokenClient = new ContractClient({
      validator,
      baseUrl: server.url,
      credentials: { basic: { username: creds.clientId, password: creds.clientSecret } },
    });
    const token = await tokenClient.call('getAccessToken', {
      query: { grant_type: 'client_credentials', scope: scopes.join(' ') },
    });
    expect(token.problems).toEqual([]);
    expect(token.status).toBe(200);
    const accessToken = (token.json as { access_token: string }).access_token;
    return new ContractClient({
      validator,
      baseUrl: server.url,
      credentials: {
        bearer: accessToken,
        basic: { username: creds.clientId, password: creds.clientSecret },
      },
    });
  }

  /** Calls an operation and asserts the response conforms to the spec and has the expected status. */
  async function expectCall(
    operationId: string,
    options: CallOptions,
    status: number,
    as: ContractClient = client,
  ): Promise<CallResult> {
    const result = await as.call(operationId, options);
    expect(result.problems, `${operationId}: ${result.text.slice(0, 400)}`).toEqual([]);
    expect(result.status, `${operationId}: ${result.text.slice(0, 400)}`).toBe(status);
    return result;
  }

  beforeAll(async () => {
    tls = selfSignedCertificate();
    server = await startReferenceServer(database, {
      PLATFORM_RATE_LIMIT: '0',
      ...deliveringTo(tls.certFile),
      PLATFORM_DELIVERY_RETRY_SCHEDULE: '200ms,500ms,1s',
    });
    credentials = await server.createClient(`contract-${database}`, allScopes);
    client = await clientFor(credentials, allScopes);
    otherTenant = await clientFor(
      await server.createClient(`contract-other-${database}`, allScopes),
      allScopes,
    );
    dataOnly = await clientFor(await server.createClient(`contract-data-${database}`, ['data']), ['data']);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    tls?.remove();
  });

  /** Every phase against the server with `seed`, its reports under `name`; fails on any failure. */
  async function runAll(runSeed: number, name: string) {
    if (!tls) throw new Error('no certificate for the webhooks: the suite did not start');
    const report = await runContractTests({
      api: 'platform',
      target: `the reference server on ${database}`,
      validator,
      client,
      otherTenant,
      seed: runSeed,
      maxExamples: 60,
      scopes: platformScopes(validator, server.url, credentials, allScopes.join(' ')),
      phaseRunners: { webhooks: webhooksPhase({ tls }) },
    });
    writeReports(report, reportFiles(name));
    console.log(formatSummary(report));
    expect(report.fatal).toBeUndefined();
    expect(failuresOf(report).map(describeFailure)).toEqual([]);
    return report;
  }

  it('runs every phase against it with no failure and at least 5,000 generated requests', async () => {
    const report = await runAll(seed, `platform-reference-${database}`);
    expect(report.requests).toBeGreaterThanOrEqual(5000);
    expect(report.phases.map((phase) => phase.name)).toEqual([...PHASES]);
    // Every operation was called, and the stateful checks ran.
    expect(
      report.matrix.filter((row) => Object.keys(row.seen).length === 0).map((row) => row.operationId),
    ).toEqual([]);
    for (const check of [
      'ensure_resource_availability',
      'use_after_free',
      'tenant_isolation',
      'request_body_conformance',
      'callback_accepted',
      'pagination_semantics',
      'deleted_not_listed',
      'scope_enforcement',
    ] as const) {
      expect(
        report.results.some(
          (result) => result.check === check && result.outcome === 'passed' && result.runs > 0,
        ),
        check,
      ).toBe(true);
    }
  }, 900_000);

  it('passes every phase with a fresh random seed too (printed: it reproduces the run)', async () => {
    const fresh = randomSeed();
    console.log(`the reference server on ${database}, random seed ${fresh}`);
    await runAll(fresh, `platform-reference-${database}-random`);
  }, 900_000);

  describe('token endpoint', () => {
    it('issues tokens by GET with a query, by POST with a query and by POST with a form body', async () => {
      const basic = new ContractClient({
        validator,
        baseUrl: server.url,
        credentials: { basic: { username: credentials.clientId, password: credentials.clientSecret } },
      });
      const viaQuery = await expectCall(
        'createAccessToken',
        { query: { grant_type: 'client_credentials', scope: 'data user' } },
        200,
        basic,
      );
      const viaForm = await expectCall(
        'createAccessToken',
        {
          contentType: 'application/x-www-form-urlencoded',
          body: 'grant_type=client_credentials&scope=data+user',
        },
        200,
        basic,
      );
      for (const result of [viaQuery, viaForm]) {
        expect(result.headers.get('cache-control')).toContain('no-store');
        expect(result.json).toMatchObject({ token_type: 'bearer', expires_in: 3599 });
        expect(
          String((result.json as { scope: string }).scope)
            .split(' ')
            .sort(),
        ).toEqual(['data', 'user']);
      }
    });

    it('refuses a wrong secret with invalid_client and an unknown grant with unsupported_grant_type', async () => {
      const wrong = new ContractClient({
        validator,
        baseUrl: server.url,
        credentials: { basic: { username: credentials.clientId, password: 'not-the-secret' } },
      });
      const refused = await expectCall(
        'getAccessToken',
        { query: { grant_type: 'client_credentials' } },
        401,
        wrong,
      );
      expect(refused.json).toMatchObject({ error: 'invalid_client' });
      const badGrant = await expectCall('getAccessToken', { query: { grant_type: 'password' } }, 400, client);
      expect(badGrant.json).toMatchObject({
        error: expect.stringMatching(/unsupported_grant_type|invalid_request/),
      });
    });

    it('refuses an operation outside the token scope with 403 insufficient_scope', async () => {
      const refused = await expectCall('listUsers', {}, 403, dataOnly);
      expect(refused.json).toMatchObject({ error: 'insufficient_scope' });
      await expectCall('listDatasets', {}, 200, dataOnly);
    });
  });
});
