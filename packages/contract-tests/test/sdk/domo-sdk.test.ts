// Real clients are the judge: the service's own Node SDK (domo-sdk from npm, unmodified, pinned in
// package.json) walks the reference server and the platform mock through its public API (domo_walk.cjs,
// in a child process, as a user's script): the same walk, judged by the same checks. The SDK speaks only
// HTTPS (`https://${host}`, no option), so the server runs with `--tls-cert/--tls-key` and a certificate
// made for this run, which the child trusts through NODE_EXTRA_CA_CERTS — as a user would; the mock
// (plain HTTP) gets a TLS front that passes bytes through. Each call must succeed as the SDK sees it and
// give back what was sent; the SDK must ask for exactly one token for the whole sequential run, counted
// on the serving side (the server's request log, the mock's answer lines). The walk's inputs are the
// spec's own examples.
import { type SelfSignedCertificate, selfSignedCertificate, unavailable } from '@platform-api/test-support';
import type { JsonObject } from '@platform-api/validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundle, namedExample, namedObjectExample, SpecValidator } from '../../src/index.js';
import { referenceServerDatabases } from '../platform/support/reference-server.js';
import {
  asObject,
  expectOneTokenRequest,
  idsOf,
  logCaughtUp,
  okValue as okValueOf,
  stepOf,
  walkLogged,
} from './support/judging.js';
import { type LoggedMock, startLoggedMock } from './support/logged-mock.js';
import { type LoggedRequest, type LoggedServer, startLoggedServer } from './support/logged-server.js';
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

/** Every field of `sent` that `record` carries, read back as sent (at least one). */
function expectFieldsOf(record: JsonObject, sent: JsonObject): void {
  const fields = Object.keys(sent).filter((field) => field in record);
  expect(fields.length, `none of ${Object.keys(sent).join(', ')} came back`).toBeGreaterThan(0);
  for (const field of fields) expect(record[field], field).toEqual(sent[field]);
}

const walkedRequests = (run: NodeWalkRun) =>
  run.steps.reduce((count, step) => count + step.exchanges.length, 0);

/** A walk and the service that served it: the `host` the SDK was given, and that service's own log. */
interface Walked {
  run: NodeWalkRun;
  host: string;
  requests(): LoggedRequest[];
}

/**
 * The checks of a walk, whoever served it (`log` names where the requests are counted): every step's
 * result, HTTPS and 2xx throughout, one token for the whole run.
 */
function judgeWalk(walked: () => Walked, log: string): void {
  const okValue = (name: string): unknown => okValueOf(walked().run, name, describeNodeStep);
  const userOf = () => asObject(okValue('users_create'));
  const groupOf = () => asObject(okValue('groups_create'));
  const datasetOf = () => asObject(okValue('datasets_create'));
  const deleted = (name: string, id: unknown) => {
    const record = asObject(okValue(name));
    expect([record.id, record.deleted]).toEqual([id, true]);
  };
  const checks: Record<string, () => void> = {
    users_create: () => {
      const user = userOf();
      expect(Number.isInteger(user.id)).toBe(true);
      expectFieldsOf(user, fixtures.user);
    },
    users_get: () => {
      const user = asObject(okValue('users_get'));
      expect(user.id).toBe(userOf().id);
      expectFieldsOf(user, fixtures.user);
    },
    // 200 with no body: the SDK returns nothing; the read back shows the change.
    users_update: () => expect(okValue('users_update')).toBeNull(),
    users_get_updated: () => expectFieldsOf(asObject(okValue('users_get_updated')), fixtures.userUpdate),
    users_list: () => expect(idsOf(okValue('users_list'))).toContain(userOf().id),
    groups_create: () => {
      const group = groupOf();
      expect(Number.isInteger(group.id)).toBe(true);
      expectFieldsOf(group, fixtures.group);
    },
    groups_get: () => {
      const group = asObject(okValue('groups_get'));
      expect(group.id).toBe(groupOf().id);
      expectFieldsOf(group, fixtures.group);
    },
    groups_update: () => expectFieldsOf(asObject(okValue('groups_update')), fixtures.groupUpdate),
    groups_get_updated: () => expectFieldsOf(asObject(okValue('groups_get_updated')), fixtures.groupUpdate),
    groups_list: () => expect(idsOf(okValue('groups_list'))).toContain(groupOf().id),
    groups_add_user: () => expect(okValue('groups_add_user')).toBeNull(),
    groups_list_users: () => expect(okValue('groups_list_users')).toEqual([userOf().id]),
    groups_remove_user: () => expect(okValue('groups_remove_user')).toBeNull(),
    groups_list_users_after: () => expect(okValue('groups_list_users_after')).toEqual([]),
    groups_delete: () => expect(okValue('groups_delete')).toBeNull(),
    groups_get_deleted: () => deleted('groups_get_deleted', groupOf().id),
    datasets_create: () => {
      const dataset = datasetOf();
      expect(typeof dataset.id).toBe('string');
      expect([dataset.name, dataset.schema]).toEqual([fixtures.dataset.name, fixtures.dataset.schema]);
    },
    datasets_get: () => {
      const dataset = asObject(okValue('datasets_get'));
      expect([dataset.id, dataset.name, dataset.schema]).toEqual([
        datasetOf().id,
        fixtures.dataset.name,
        fixtures.dataset.schema,
      ]);
    },
    datasets_update: () => expectFieldsOf(asObject(okValue('datasets_update')), fixtures.datasetUpdate),
    datasets_get_updated: () =>
      expectFieldsOf(asObject(okValue('datasets_get_updated')), fixtures.datasetUpdate),
    datasets_list: () => expect(idsOf(okValue('datasets_list'))).toContain(datasetOf().id),
    // A CSV import answers 204: the SDK (reading text) returns the empty body.
    datasets_import: () => expect(okValue('datasets_import')).toBe(''),
    // What was imported comes back, with the header line the SDK asks for.
    datasets_export: () => expect(okValue('datasets_export')).toBe(csvExport),
    datasets_delete: () => expect(okValue('datasets_delete')).toBeNull(),
    datasets_get_deleted: () => deleted('datasets_get_deleted', datasetOf().id),
    users_delete: () => expect(okValue('users_delete')).toBeNull(),
    users_get_deleted: () => deleted('users_get_deleted', userOf().id),
  };

  it('walks exactly the steps checked here', () => {
    expect(walked().run.steps.map((step) => step.name)).toEqual(Object.keys(checks));
  });

  for (const [name, check] of Object.entries(checks)) it(name, check);

  it('speaks HTTPS, and every call was answered 2xx', () => {
    const { run, host } = walked();
    const exchanges = run.steps.flatMap((step) => step.exchanges);
    expect(exchanges.length).toBeGreaterThan(Object.keys(checks).length);
    for (const exchange of exchanges) {
      expect(exchange.url.startsWith(`https://${host}/`), exchange.url).toBe(true);
      expect(exchange.status, `${exchange.method} ${exchange.url}`).toBeGreaterThanOrEqual(200);
      expect(exchange.status, `${exchange.method} ${exchange.url}`).toBeLessThan(300);
    }
  });

  it(`asks for exactly one token for the whole sequential run (counted in ${log})`, () => {
    const { run, requests } = walked();
    expectOneTokenRequest(requests(), walkedRequests(run), 'the SDK');
  });
}

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
    let walked: Walked;
    let untrusted: NodeWalkRun;

    beforeAll(async () => {
      server = await startLoggedServer(database, tls);
      const options = { host: server.host, ...server.credentials, fixtures };
      const run = await runNodeWalk({ ...options, caFile: tls.certFile });
      walked = { run, host: server.host, requests: server.requests };
      const answered = () => walkLogged(server.requests()).filter((r) => r.status !== undefined).length;
      await logCaughtUp(answered, walkedRequests(run));
      // The same walk without the certificate trusted: the SDK checks it (nothing switched off).
      untrusted = await runNodeWalk({ ...options, caFile: undefined });
    }, 300_000);
    afterAll(async () => {
      await server?.close();
    });

    judgeWalk(() => walked, "the server's request log");

    it('refuses the server when the certificate is not trusted (NODE_EXTRA_CA_CERTS unset)', () => {
      const first = stepOf(untrusted, 'users_create');
      expect(first.ok).toBe(false);
      expect(first.error).toMatch(/self[- ]signed certificate/i);
      expect(untrusted.steps.flatMap((step) => step.exchanges)).toEqual([]);
    });
  });

  describe('domo-sdk against the platform mock (through a TLS front)', () => {
    let mock: LoggedMock;
    let front: TlsFront;
    let walked: Walked;

    beforeAll(async () => {
      mock = await startLoggedMock();
      const { hostname, port } = new URL(mock.url);
      front = await startTlsFront({ host: hostname, port: Number(port) }, tls);
      // A client id of the run's own: a tenant that starts from the spec's examples.
      const run = await runNodeWalk({
        host: front.host,
        ...mock.credentials,
        fixtures,
        caFile: tls.certFile,
      });
      walked = { run, host: front.host, requests: mock.requests };
      await logCaughtUp(() => mock.requests().length, walkedRequests(run));
    }, 300_000);
    afterAll(async () => {
      await front?.close();
      await mock?.close();
    });

    judgeWalk(() => walked, "the mock's answer lines");
  });
}
