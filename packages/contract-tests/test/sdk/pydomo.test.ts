// Real clients are the judge: the service's own Python SDK (pydomo from PyPI, unmodified, version pinned
// in requirements.txt) walks the reference server and the platform mock through its public API
// (pydomo_walk.py). Each step must succeed as pydomo sees it and give back what was sent; every answer
// pydomo received must conform to the spec; and pydomo must ask for exactly one token for the whole run
// — counted by the server (its request log) and by Prism (its log), not by the client. pydomo renews
// its token whenever it cannot read a future `exp` from it, so one token means the tokens are JWTs
// with a usable `exp` (the server's, and the spec's example that the mock serves).
// The walk's inputs are the spec's own examples; the mock's answers are compared with the spec's examples.
import { isDeepStrictEqual } from 'node:util';
import { type MockServer, startMock } from '@platform-api/mock';
import { unavailable } from '@platform-api/test-support';
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
import { describeStep, type Exchange, pythonSdk, runWalk, type WalkRun } from './support/python-sdk.js';

const validator = new SpecValidator(loadBundle('platform'));
const tokenExample = namedObjectExample(validator, 'TokenResponse');
const fixtures = {
  // The scopes of the spec's token example ("data user"): what an SDK user of users and datasets asks for.
  scopes: String(tokenExample.scope).split(' '),
  user: namedObjectExample(validator, 'UserCreateRequest'),
  userUpdate: namedObjectExample(validator, 'UserUpdateRequest'),
  group: namedObjectExample(validator, 'GroupCreateRequest'),
  dataset: namedObjectExample(validator, 'DatasetCreateRequest'),
  csvImport: String(namedExample(validator, 'DatasetCsvImport')),
};
const csvExport = String(namedExample(validator, 'DatasetCsvExport'));

const okValue = (run: WalkRun, name: string): unknown => okValueOf(run, name, describeStep);

function jwtClaims(token: string): JsonObject {
  const payload = token.split('.')[1];
  if (payload === undefined) throw new Error(`not a JWT: ${token}`);
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JsonObject;
}

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

/** The walk's steps against the mock after the token: each must give back one of the spec's examples. */
const mockAnswerSteps = [
  'users_add',
  'users_get',
  'users_list_page',
  'groups_create',
  'groups_get',
  'groups_list_page',
  'ds_list_first',
];

const walkedRequests = (run: WalkRun) => run.steps.reduce((count, step) => count + step.exchanges.length, 0);

const databases = await referenceServerDatabases('pydomo against the reference server');

const sdk = await pythonSdk();
if (!sdk.available) {
  unavailable('pydomo (the service Python SDK) against the reference server and the mock', sdk.reason);
} else {
  const python = sdk.python;

  describe.each(databases)('pydomo against the reference server (%s)', (database) => {
    let server: LoggedServer;
    let run: WalkRun;

    beforeAll(async () => {
      server = await startLoggedServer(database);
      run = await runWalk(python, {
        target: 'server',
        host: server.host,
        clientId: server.credentials.clientId,
        clientSecret: server.credentials.clientSecret,
        fixtures,
      });
      const answered = () =>
        server.requests().filter((r) => r.url !== '/readyz' && r.status !== undefined).length;
      await logCaughtUp(answered, walkedRequests(run));
    }, 300_000);
    afterAll(async () => {
      await server?.close();
    });

    const userOf = () => asObject(okValue(run, 'users_add'));
    const groupOf = () => asObject(okValue(run, 'groups_create'));
    const datasetOf = () => asObject(okValue(run, 'datasets_create'));
    const checks: Record<string, () => void> = {
      token: () => {
        const { expiration } = asObject(okValue(run, 'token'));
        const answer = asObject(JSON.parse(stepOf(run, 'token').exchanges.at(-1)?.responseBody ?? 'null'));
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
        const user = asObject(okValue(run, 'users_get'));
        expect([user.id, user.email]).toEqual([userOf().id, fixtures.user.email]);
      },
      users_update: () => {
        const { readBack } = asObject(okValue(run, 'users_update'));
        const user = asObject(readBack);
        // Every field of the update that a user carries is read back as sent.
        const fields = Object.keys(fixtures.userUpdate).filter((field) => field in user);
        expect(fields.length).toBeGreaterThan(0);
        for (const field of fields) expect(user[field], field).toEqual(fixtures.userUpdate[field]);
      },
      users_list: () => expect(idsOf(okValue(run, 'users_list'))).toContain(userOf().id),
      groups_create: () => {
        const group = groupOf();
        expect(Number.isInteger(group.id)).toBe(true);
        expect(group.name).toBe(fixtures.group.name);
      },
      groups_get: () => {
        const group = asObject(okValue(run, 'groups_get'));
        expect([group.id, group.name]).toEqual([groupOf().id, fixtures.group.name]);
      },
      groups_list: () => expect(idsOf(okValue(run, 'groups_list'))).toContain(groupOf().id),
      groups_add_users: () => expect(okValue(run, 'groups_add_users')).toBe('success'),
      groups_list_users: () => expect(okValue(run, 'groups_list_users')).toEqual([userOf().id]),
      groups_remove_users: () => expect(asObject(okValue(run, 'groups_remove_users')).members).toEqual([]),
      groups_delete: () =>
        expect(asObject(asObject(okValue(run, 'groups_delete')).readBack).deleted).toBe(true),
      datasets_create: () => {
        const dataset = datasetOf();
        expect(typeof dataset.id).toBe('string');
        expect(dataset.name).toBe(fixtures.dataset.name);
        expect(dataset.schema).toEqual(fixtures.dataset.schema);
      },
      ds_list: () => expect(idsOf(okValue(run, 'ds_list'))).toContain(datasetOf().id),
      // pydomo follows a short first page with `GET /v1/datasets?limit=0&offset=10&nameLike=` and stops
      // on `[]`: limit=0 must be an empty page.
      ds_list_limit: () => expect(idsOf(okValue(run, 'ds_list_limit'))).toEqual([datasetOf().id]),
      ds_meta: () => {
        const dataset = asObject(okValue(run, 'ds_meta'));
        expect([dataset.id, dataset.name, dataset.schema]).toEqual([
          datasetOf().id,
          fixtures.dataset.name,
          fixtures.dataset.schema,
        ]);
      },
      datasets_data_import: () => expect(okValue(run, 'datasets_data_import')).toBeNull(),
      datasets_data_export: () => expect(okValue(run, 'datasets_data_export')).toBe(csvExport),
      ds_get: () => {
        // pydomo reads the export into pandas with the dataset's column types; it prints (not raises)
        // when it cannot, so what it printed must be nothing.
        const { rows, printed } = asObject(okValue(run, 'ds_get'));
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
        const { returned, export: exported } = asObject(okValue(run, 'datasets_data_append'));
        expect(returned).toBeNull();
        const [, ...rows] = csvExport.trim().split('\n');
        expect(String(exported).trim().split('\n')).toEqual([...csvExport.trim().split('\n'), ...rows]);
      },
      ds_delete: () => expect(asObject(asObject(okValue(run, 'ds_delete')).readBack).deleted).toBe(true),
      users_delete: () =>
        expect(asObject(asObject(okValue(run, 'users_delete')).readBack).deleted).toBe(true),
    };

    it('walks exactly the steps checked here', () => {
      expect(run.steps.map((step) => step.name)).toEqual(Object.keys(checks));
    });

    for (const [name, check] of Object.entries(checks)) it(name, check);

    it('asks for exactly one token for the whole run (counted in the server request log)', () => {
      const logged = server.requests();
      const tokenRequests = logged.filter((request) => request.url.split('?')[0] === '/oauth/token');
      const walked = walkedRequests(run);
      expect(
        tokenRequests.length,
        `${tokenRequests.length} token requests among ${logged.length} logged (pydomo made ${walked}):\n` +
          tokenRequests.map((r) => `  ${r.method} ${r.url} → ${r.status}`).join('\n'),
      ).toBe(1);
      // The log saw the whole walk: the count above is of every request pydomo sent.
      expect(logged.filter((request) => request.url !== '/readyz').length).toBe(walked);
    });

    it('gets only answers the spec documents', () => {
      expect(conformanceProblems(run)).toEqual([]);
    });
  });

  describe('pydomo against the platform mock', () => {
    let mock: MockServer;
    let run: WalkRun;
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
      // Prism checks that credentials are present, not what they are.
      run = await runWalk(python, {
        target: 'mock',
        host: new URL(mock.url).host,
        clientId: 'sdk-client',
        clientSecret: 'sdk-secret',
        fixtures,
      });
      await logCaughtUp(() => prismRequests(prismLog).length, walkedRequests(run));
    }, 120_000);
    afterAll(async () => {
      await mock?.close();
    });

    it('reads the far-future exp of the example token', () => {
      const { expiration } = asObject(okValue(run, 'token'));
      const exchange = stepOf(run, 'token').exchanges.at(-1);
      const operation = exchange && validator.findOperation(exchange.method, pathOf(exchange));
      if (!operation) throw new Error('the token request matches no operation');
      const tokens = successExamples(validator, operation).map((example) =>
        String(asObject(example).access_token),
      );
      expect(tokens.map((token) => jwtClaims(token).exp)).toContain(expiration);
      expect(expiration).toBeGreaterThan(Date.now() / 1000 + 10 * 365 * 24 * 3600);
    });

    for (const name of mockAnswerSteps) {
      it(`${name} gives back the spec's example`, () => {
        const value = okValue(run, name);
        const exchange = stepOf(run, name).exchanges.at(-1);
        const operation = exchange && validator.findOperation(exchange.method, pathOf(exchange));
        if (!operation) throw new Error(`${name}: its request matches no operation`);
        // A list pydomo cut short (ds_list with a limit) is the start of the example's list.
        const matches = successExamples(validator, operation).some((example) =>
          Array.isArray(example) && Array.isArray(value)
            ? value.length > 0 && isDeepStrictEqual(value, example.slice(0, value.length))
            : isDeepStrictEqual(value, example),
        );
        expect(matches, `${JSON.stringify(value)} is no example of ${operation.operationId}`).toBe(true);
      });
    }

    it('walks exactly the steps checked here', () => {
      expect(run.steps.map((step) => step.name)).toEqual(['token', ...mockAnswerSteps]);
    });

    it('asks for exactly one token for the whole run (counted in the Prism log)', () => {
      const received = prismRequests(prismLog);
      const tokenRequests = received.filter((match) => match[2]?.split('?')[0] === '/oauth/token');
      expect(tokenRequests.length, `${tokenRequests.length} token requests among ${received.length}`).toBe(1);
      // The log saw the whole walk: the count above is of every request pydomo sent.
      expect(received.length).toBe(walkedRequests(run));
    });

    it('gets only answers the spec documents', () => {
      expect(conformanceProblems(run)).toEqual([]);
    });
  });
}
