// Real clients are the judge: the service's own Python SDK (pydomo from PyPI, unmodified, version pinned
// in requirements.txt) walks the reference server and the platform mock through its public API
// (pydomo_walk.py): the same walk, judged by the same checks. Each step must succeed as pydomo sees it
// and give back what was sent; every answer pydomo received must conform to the spec; and pydomo must ask
// for exactly one token for the whole run — counted by the service (the server's request log, the mock's
// answer lines), not by the client. pydomo renews its token whenever it cannot read a future `exp` from
// it, so one token means the tokens are JWTs with a usable `exp`. The walk's inputs are the spec's own
// examples.
import { unavailable } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundle, namedExample, namedObjectExample, SpecValidator } from '../../src/index.js';
import { referenceServerDatabases } from '../platform/support/reference-server.js';
import {
  asArray,
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
import { describeStep, type Exchange, pythonSdk, runWalk, type WalkRun } from './support/python-sdk.js';

const validator = new SpecValidator(loadBundle('platform'));
const fixtures = {
  // The scopes of the spec's token example ("data user"): what an SDK user of users and datasets asks for.
  scopes: String(namedObjectExample(validator, 'TokenResponse').scope).split(' '),
  user: namedObjectExample(validator, 'UserCreateRequest'),
  userUpdate: namedObjectExample(validator, 'UserUpdateRequest'),
  group: namedObjectExample(validator, 'GroupCreateRequest'),
  dataset: namedObjectExample(validator, 'DatasetCreateRequest'),
  csvImport: String(namedExample(validator, 'DatasetCsvImport')),
};
const csvExport = String(namedExample(validator, 'DatasetCsvExport'));

function pathOf(exchange: Exchange): string {
  return new URL(exchange.url).pathname;
}

/** Every answer pydomo got, checked against the spec by the one shared validator. */
function conformanceProblems(run: WalkRun): string[] {
  const problems: string[] = [];
  for (const step of run.steps) {
    for (const exchange of step.exchanges) {
      const label = `${step.name}: ${exchange.method} ${exchange.url} → ${exchange.status}`;
      const operation = validator.findOperation(exchange.method, pathOf(exchange));
      if (!operation) {
        problems.push(`${label}: no operation of the spec matches`);
        continue;
      }
      const found = validator.validateResponse(operation, {
        status: exchange.status,
        headers: new Headers(exchange.responseHeaders),
        body: exchange.responseBody ?? '',
      });
      for (const problem of found) problems.push(`${label}: ${problem.check}: ${problem.message}`);
    }
  }
  return problems;
}

const walkedRequests = (run: WalkRun) => run.steps.reduce((count, step) => count + step.exchanges.length, 0);

/** A walk and the log of the service that served it. */
interface Walked {
  run: WalkRun;
  requests(): LoggedRequest[];
}

/**
 * The checks of a walk, whoever served it (`log` names where the requests are counted): every step's
 * result, one token for the whole run, only answers the spec documents.
 */
function judgeWalk(walked: () => Walked, log: string): void {
  const okValue = (name: string): unknown => okValueOf(walked().run, name, describeStep);
  const userOf = () => asObject(okValue('users_add'));
  const groupOf = () => asObject(okValue('groups_create'));
  const datasetOf = () => asObject(okValue('datasets_create'));
  const checks: Record<string, () => void> = {
    token: () => {
      const { expiration } = asObject(okValue('token'));
      const answer = asObject(
        JSON.parse(stepOf(walked().run, 'token').exchanges.at(-1)?.responseBody ?? 'null'),
      );
      const now = Date.now() / 1000;
      const why = `pydomo read exp=${expiration} from the token (0: no JWT exp, so it renews before every call)`;
      expect(expiration, why).toBeGreaterThan(now);
      expect(expiration).toBeLessThanOrEqual(now + Number(answer.expires_in) + 5);
    },
    users_add: () => {
      const user = userOf();
      expect(Number.isInteger(user.id)).toBe(true);
      expect({ name: user.name, email: user.email, role: user.role }).toEqual({
        name: fixtures.user.name,
        email: fixtures.user.email,
        role: fixtures.user.role,
      });
    },
    users_get: () => {
      const user = asObject(okValue('users_get'));
      expect([user.id, user.email]).toEqual([userOf().id, fixtures.user.email]);
    },
    users_update: () => {
      const { readBack } = asObject(okValue('users_update'));
      const user = asObject(readBack);
      // Every field of the update that a user carries is read back as sent.
      const fields = Object.keys(fixtures.userUpdate).filter((field) => field in user);
      expect(fields.length).toBeGreaterThan(0);
      for (const field of fields) expect(user[field], field).toEqual(fixtures.userUpdate[field]);
    },
    users_list: () => expect(idsOf(okValue('users_list'))).toContain(userOf().id),
    groups_create: () => {
      const group = groupOf();
      expect(Number.isInteger(group.id)).toBe(true);
      expect(group.name).toBe(fixtures.group.name);
    },
    groups_get: () => {
      const group = asObject(okValue('groups_get'));
      expect([group.id, group.name]).toEqual([groupOf().id, fixtures.group.name]);
    },
    groups_list: () => expect(idsOf(okValue('groups_list'))).toContain(groupOf().id),
    groups_add_users: () => expect(okValue('groups_add_users')).toBe('success'),
    groups_list_users: () => expect(okValue('groups_list_users')).toEqual([userOf().id]),
    groups_remove_users: () => expect(asObject(okValue('groups_remove_users')).members).toEqual([]),
    groups_delete: () => expect(asObject(asObject(okValue('groups_delete')).readBack).deleted).toBe(true),
    datasets_create: () => {
      const dataset = datasetOf();
      expect(typeof dataset.id).toBe('string');
      expect(dataset.name).toBe(fixtures.dataset.name);
      expect(dataset.schema).toEqual(fixtures.dataset.schema);
    },
    ds_list: () => expect(idsOf(okValue('ds_list'))).toContain(datasetOf().id),
    // With a limit of 10 above the number of datasets, pydomo follows the short first page with
    // `GET /v1/datasets?limit=0&offset=10&nameLike=` and stops on `[]`: the whole list comes back once.
    ds_list_limit: () => {
      const all = idsOf(okValue('ds_list'));
      expect(all.length).toBeLessThan(10);
      expect(idsOf(okValue('ds_list_limit'))).toEqual(all);
    },
    ds_meta: () => {
      const dataset = asObject(okValue('ds_meta'));
      expect([dataset.id, dataset.name, dataset.schema]).toEqual([
        datasetOf().id,
        fixtures.dataset.name,
        fixtures.dataset.schema,
      ]);
    },
    datasets_data_import: () => expect(okValue('datasets_data_import')).toBeNull(),
    datasets_data_export: () => expect(okValue('datasets_data_export')).toBe(csvExport),
    ds_get: () => {
      // pydomo reads the export into pandas with the dataset's column types; it prints (not raises)
      // when it cannot, so what it printed must be nothing.
      const { rows, printed } = asObject(okValue('ds_get'));
      expect(printed).toBe('');
      const [header, ...lines] = csvExport.trim().split('\n');
      const columns = (header ?? '').split(',');
      const frame = asArray(rows).map(asObject);
      expect(frame.length).toBe(lines.length);
      lines.forEach((line, index) => {
        line.split(',').forEach((value, column) => {
          const name = columns[column] ?? '';
          // Dates come back as ISO date-times (pandas parses DATE columns).
          expect(String(frame[index]?.[name]).startsWith(value), `row ${index} ${name}`).toBe(true);
        });
      });
    },
    datasets_data_append: () => {
      const { returned, export: exported } = asObject(okValue('datasets_data_append'));
      expect(returned).toBeNull();
      const [, ...rows] = csvExport.trim().split('\n');
      expect(String(exported).trim().split('\n')).toEqual([...csvExport.trim().split('\n'), ...rows]);
    },
    ds_delete: () => expect(asObject(asObject(okValue('ds_delete')).readBack).deleted).toBe(true),
    users_delete: () => expect(asObject(asObject(okValue('users_delete')).readBack).deleted).toBe(true),
  };

  it('walks exactly the steps checked here', () => {
    expect(walked().run.steps.map((step) => step.name)).toEqual(Object.keys(checks));
  });

  for (const [name, check] of Object.entries(checks)) it(name, check);

  it(`asks for exactly one token for the whole run (counted in ${log})`, () => {
    const { run, requests } = walked();
    expectOneTokenRequest(requests(), walkedRequests(run), 'pydomo');
  });

  it('gets only answers the spec documents', () => {
    expect(conformanceProblems(walked().run)).toEqual([]);
  });
}

const databases = await referenceServerDatabases('pydomo against the reference server');

const sdk = await pythonSdk();
if (!sdk.available) {
  unavailable('pydomo (the service Python SDK) against the reference server and the mock', sdk.reason);
} else {
  const python = sdk.python;

  describe.each(databases)('pydomo against the reference server (%s)', (database) => {
    let server: LoggedServer;
    let walked: Walked;

    beforeAll(async () => {
      server = await startLoggedServer(database);
      const run = await runWalk(python, { host: server.host, ...server.credentials, fixtures });
      walked = { run, requests: server.requests };
      const answered = () => walkLogged(server.requests()).filter((r) => r.status !== undefined).length;
      await logCaughtUp(answered, walkedRequests(run));
    }, 300_000);
    afterAll(async () => {
      await server?.close();
    });

    judgeWalk(() => walked, "the server's request log");
  });

  describe('pydomo against the platform mock', () => {
    let mock: LoggedMock;
    let walked: Walked;

    beforeAll(async () => {
      mock = await startLoggedMock();
      // A client id of the run's own: a tenant that starts from the spec's examples.
      const run = await runWalk(python, { host: mock.host, ...mock.credentials, fixtures });
      walked = { run, requests: mock.requests };
      await logCaughtUp(() => mock.requests().length, walkedRequests(run));
    }, 300_000);
    afterAll(async () => {
      await mock?.close();
    });

    judgeWalk(() => walked, "the mock's answer lines");
  });
}
