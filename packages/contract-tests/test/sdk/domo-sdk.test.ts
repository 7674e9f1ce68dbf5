// Real clients are the judge: the service's own Node SDK (domo-sdk from npm, unmodified, pinned in
// package.json) walks the reference server and the platform mock through its public API (domo_walk.cjs,
// in a child process, as a user's script). The SDK speaks only HTTPS (`https://${host}`, no option), so
// the server runs with `--tls-cert/--tls-key` and a certificate made for this run, which the child trusts
// through NODE_EXTRA_CA_CERTS — as a user would; the mock (plain HTTP) gets a TLS front that passes bytes
// through. Each call must succeed as the SDK sees it and give back what was sent (against the mock: the
// spec's examples); the SDK must ask for exactly one token for the whole sequential run, counted on the
// serving side (the server's request log, Prism's log). The walk's inputs are the spec's own examples.
import { isDeepStrictEqual } from 'node:util';
import { type MockServer, startMock } from '@platform-api/mock';
import { type SelfSignedCertificate, selfSignedCertificate, unavailable } from '@platform-api/test-support';
import type { JsonObject } from '@platform-api/validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, loadBundle, namedExample, namedObjectExample, SpecValidator } from '../../src/index.js';
import { referenceServerDatabases } from '../platform/support/reference-server.js';
import {
  asArray,
  asObject,
  idsOf,
  logCaughtUp,
  okValue as okValueOf,
  prismRequests,
  stepOf,
  successExamples,
} from './support/judging.js';
import { type LoggedServer, startLoggedServer } from './support/logged-server.js';
import { describeNodeStep, type NodeWalkRun, runNodeWalk } from './support/node-sdk.js';
import { startTlsFront, type TlsFront } from './support/tls-front.js';

const validator = new SpecValidator(loadBundle('platform'));
const fixtures = {
  // The scopes of the spec's token example ("data user"), as the SDK's own enum names them.
  scopes: String(namedObjectExample(validator, 'TokenResponse').scope).split(' '),
  user: namedObjectExample(validator, 'UserCreateRequest'),
  userUpdate: namedObjectExample(validator, 'UserUpdateRequest'),
  group: namedObjectExample(validator, 'GroupCreateRequest'),
  groupUpdate: namedObjectExample(validator, 'GroupUpdateRequest'),
  dataset: namedObjectExample(validator, 'DatasetCreateRequest'),
  datasetUpdate: namedObjectExample(validator, 'DatasetUpdateRequest'),
  csvImport: String(namedExample(validator, 'DatasetCsvImport')),
};
const csvExport = String(namedExample(validator, 'DatasetCsvExport'));

const okValue = (run: NodeWalkRun, name: string): unknown => okValueOf(run, name, describeNodeStep);

/** Every field of `sent` that `record` carries, read back as sent (at least one). */
function expectFieldsOf(record: JsonObject, sent: JsonObject): void {
  const fields = Object.keys(sent).filter((field) => field in record);
  expect(fields.length, `none of ${Object.keys(sent).join(', ')} came back`).toBeGreaterThan(0);
  for (const field of fields) expect(record[field], field).toEqual(sent[field]);
}

const walkedRequests = (run: NodeWalkRun) =>
  run.steps.reduce((count, step) => count + step.exchanges.length, 0);
const isTokenRequest = (url: string) => new URL(url, 'https://x').pathname === '/oauth/token';

let certificate: SelfSignedCertificate | undefined;
let certificateProblem: string | undefined;
try {
  certificate = selfSignedCertificate();
} catch (error) {
  certificateProblem = `no self-signed certificate could be made with openssl (${(error as Error).message})`;
}
afterAll(() => certificate?.remove());

const databases = await referenceServerDatabases('domo-sdk against the reference server');

if (!certificate) {
  unavailable(
    'domo-sdk (the service Node SDK) against the reference server and the mock',
    certificateProblem ?? '',
  );
} else {
  const tls = certificate;

  describe.each(databases)('domo-sdk against the reference server over HTTPS (%s)', (database) => {
    let server: LoggedServer;
    let run: NodeWalkRun;
    let untrusted: NodeWalkRun;

    beforeAll(async () => {
      server = await startLoggedServer(database, tls);
      const options = {
        host: server.host,
        clientId: server.credentials.clientId,
        clientSecret: server.credentials.clientSecret,
        fixtures,
      };
      run = await runNodeWalk({ ...options, target: 'server', caFile: tls.certFile });
      const answered = () =>
        server.requests().filter((r) => r.url !== '/readyz' && r.status !== undefined).length;
      await logCaughtUp(answered, walkedRequests(run));
      // The same walk without the certificate trusted: the SDK checks it (nothing switched off).
      untrusted = await runNodeWalk({ ...options, target: 'mock', caFile: undefined });
    }, 300_000);
    afterAll(async () => {
      await server?.close();
    });

    const userOf = () => asObject(okValue(run, 'users_create'));
    const groupOf = () => asObject(okValue(run, 'groups_create'));
    const datasetOf = () => asObject(okValue(run, 'datasets_create'));
    const deleted = (name: string, id: unknown) => {
      const record = asObject(okValue(run, name));
      expect([record.id, record.deleted]).toEqual([id, true]);
    };
    const checks: Record<string, () => void> = {
      users_create: () => {
        const user = userOf();
        expect(Number.isInteger(user.id)).toBe(true);
        expectFieldsOf(user, fixtures.user);
      },
      users_get: () => {
        const user = asObject(okValue(run, 'users_get'));
        expect(user.id).toBe(userOf().id);
        expectFieldsOf(user, fixtures.user);
      },
      // 200 with no body: the SDK returns nothing; the read back shows the change.
      users_update: () => expect(okValue(run, 'users_update')).toBeNull(),
      users_get_updated: () =>
        expectFieldsOf(asObject(okValue(run, 'users_get_updated')), fixtures.userUpdate),
      users_list: () => expect(idsOf(okValue(run, 'users_list'))).toContain(userOf().id),
      groups_create: () => {
        const group = groupOf();
        expect(Number.isInteger(group.id)).toBe(true);
        expectFieldsOf(group, fixtures.group);
      },
      groups_get: () => {
        const group = asObject(okValue(run, 'groups_get'));
        expect(group.id).toBe(groupOf().id);
        expectFieldsOf(group, fixtures.group);
      },
      groups_update: () => expectFieldsOf(asObject(okValue(run, 'groups_update')), fixtures.groupUpdate),
      groups_get_updated: () =>
        expectFieldsOf(asObject(okValue(run, 'groups_get_updated')), fixtures.groupUpdate),
      groups_list: () => expect(idsOf(okValue(run, 'groups_list'))).toContain(groupOf().id),
      groups_add_user: () => expect(okValue(run, 'groups_add_user')).toBeNull(),
      groups_list_users: () => expect(okValue(run, 'groups_list_users')).toEqual([userOf().id]),
      groups_remove_user: () => expect(okValue(run, 'groups_remove_user')).toBeNull(),
      groups_list_users_after: () => expect(okValue(run, 'groups_list_users_after')).toEqual([]),
      groups_delete: () => expect(okValue(run, 'groups_delete')).toBeNull(),
      groups_get_deleted: () => deleted('groups_get_deleted', groupOf().id),
      datasets_create: () => {
        const dataset = datasetOf();
        expect(typeof dataset.id).toBe('string');
        expect([dataset.name, dataset.schema]).toEqual([fixtures.dataset.name, fixtures.dataset.schema]);
      },
      datasets_get: () => {
        const dataset = asObject(okValue(run, 'datasets_get'));
        expect([dataset.id, dataset.name, dataset.schema]).toEqual([
          datasetOf().id,
          fixtures.dataset.name,
          fixtures.dataset.schema,
        ]);
      },
      datasets_update: () =>
        expectFieldsOf(asObject(okValue(run, 'datasets_update')), fixtures.datasetUpdate),
      datasets_get_updated: () =>
        expectFieldsOf(asObject(okValue(run, 'datasets_get_updated')), fixtures.datasetUpdate),
      datasets_list: () => expect(idsOf(okValue(run, 'datasets_list'))).toContain(datasetOf().id),
      // A CSV import answers 204: the SDK (reading text) returns the empty body.
      datasets_import: () => expect(okValue(run, 'datasets_import')).toBe(''),
      // What was imported comes back, with the header line the SDK asks for.
      datasets_export: () => expect(okValue(run, 'datasets_export')).toBe(csvExport),
      datasets_delete: () => expect(okValue(run, 'datasets_delete')).toBeNull(),
      datasets_get_deleted: () => deleted('datasets_get_deleted', datasetOf().id),
      users_delete: () => expect(okValue(run, 'users_delete')).toBeNull(),
      users_get_deleted: () => deleted('users_get_deleted', userOf().id),
    };

    it('walks exactly the steps checked here', () => {
      expect(run.steps.map((step) => step.name)).toEqual(Object.keys(checks));
    });

    for (const [name, check] of Object.entries(checks)) it(name, check);

    it('speaks HTTPS to the server, and every call was answered 2xx', () => {
      const exchanges = run.steps.flatMap((step) => step.exchanges);
      expect(exchanges.length).toBeGreaterThan(Object.keys(checks).length);
      for (const exchange of exchanges) {
        expect(exchange.url.startsWith(`https://${server.host}/`), exchange.url).toBe(true);
        expect(exchange.status, `${exchange.method} ${exchange.url}`).toBeGreaterThanOrEqual(200);
        expect(exchange.status, `${exchange.method} ${exchange.url}`).toBeLessThan(300);
      }
    });

    it('asks for exactly one token for the whole sequential run (counted in the server request log)', () => {
      const logged = server.requests();
      const tokenRequests = logged.filter((request) => isTokenRequest(request.url));
      const walked = walkedRequests(run);
      expect(
        tokenRequests.length,
        `${tokenRequests.length} token requests among ${logged.length} logged (the SDK made ${walked}):\n` +
          tokenRequests.map((r) => `  ${r.method} ${r.url} → ${r.status}`).join('\n'),
      ).toBe(1);
      expect(tokenRequests[0]?.status).toBe(200);
      // The log saw the whole walk: the count above is of every request the SDK sent.
      expect(logged.filter((request) => request.url !== '/readyz').length).toBe(walked);
    });

    it('refuses the server when the certificate is not trusted (NODE_EXTRA_CA_CERTS unset)', () => {
      const first = stepOf(untrusted, 'users_create');
      expect(first.ok).toBe(false);
      expect(first.error).toMatch(/self[- ]signed certificate/i);
      expect(untrusted.steps.flatMap((step) => step.exchanges)).toEqual([]);
    });
  });

  describe('domo-sdk against the platform mock (through a TLS front)', () => {
    let mock: MockServer;
    let front: TlsFront;
    let run: NodeWalkRun;
    let prismLog = '';

    beforeAll(async () => {
      mock = await startMock('platform', {
        port: await freePort(),
        log: {
          write: (chunk: string | Uint8Array) => {
            prismLog += chunk.toString();
            return true;
          },
        } as NodeJS.WritableStream,
      });
      const { hostname, port } = new URL(mock.url);
      front = await startTlsFront({ host: hostname, port: Number(port) }, tls);
      // Prism checks that credentials are present, not what they are.
      run = await runNodeWalk({
        target: 'mock',
        host: front.host,
        clientId: 'sdk-client',
        clientSecret: 'sdk-secret',
        fixtures,
        caFile: tls.certFile,
      });
      await logCaughtUp(() => prismRequests(prismLog).length, walkedRequests(run));
    }, 120_000);
    afterAll(async () => {
      await front?.close();
      await mock?.close();
    });

    const mockSteps = [
      'users_create',
      'users_get',
      'users_list',
      'groups_create',
      'groups_get',
      'groups_list',
      'datasets_list',
    ];

    it('walks exactly the steps checked here', () => {
      expect(run.steps.map((step) => step.name)).toEqual(mockSteps);
    });

    for (const name of mockSteps) {
      it(`${name} gives back the spec's example`, () => {
        const value = okValue(run, name);
        const exchange = stepOf(run, name).exchanges.at(-1);
        const operation =
          exchange && validator.findOperation(exchange.method, new URL(exchange.url).pathname);
        if (!operation) throw new Error(`${name}: its request matches no operation`);
        const matches = successExamples(validator, operation).some((example) =>
          isDeepStrictEqual(value, example),
        );
        expect(matches, `${JSON.stringify(value)} is no example of ${operation.operationId}`).toBe(true);
      });
    }

    it('asks for exactly one token for the whole sequential run (counted in the Prism log)', () => {
      const received = prismRequests(prismLog);
      const tokenRequests = received.filter((match) => isTokenRequest(match[2] ?? ''));
      expect(tokenRequests.length, `${tokenRequests.length} token requests among ${received.length}`).toBe(1);
      // The log saw the whole walk: the count above is of every request the SDK sent.
      expect(received.length).toBe(walkedRequests(run));
      expect(asArray(run.steps).length).toBe(mockSteps.length);
    });
  });
}
