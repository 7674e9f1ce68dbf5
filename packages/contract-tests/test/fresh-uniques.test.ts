// Generated requests carry fresh values in the fields the spec marks unique, so that a right server's
// conflict never hides a wrong one's acceptance; a conflict over a value that was not fresh decides
// nothing; and a fuzz failure is recorded from the answer fast-check saw, not from the request sent again
// (a create sent again meets what it made the first time).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallResult,
  CHECK_NAMES,
  ContractClient,
  failuresOf,
  type OpenApiDocument,
  runContractTests,
  Session,
  SpecValidator,
} from '../src/index.js';
import { judgeCall } from '../src/run/phases/judge.js';
import { withFreshUniques } from '../src/run/values/unique.js';

const KINDS = ['a', 'b'];

const spec = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  paths: {
    '/things': {
      post: {
        operationId: 'createThing',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ThingCreate' },
              example: { name: 'one', email: 'one@example.com', kind: 'a' },
            },
          },
        },
        responses: {
          '201': { description: 'created', content: { 'application/json': { schema: { type: 'object' } } } },
          '400': { description: 'a bad request' },
          '409': { description: 'the name or e-mail is taken' },
          '415': { description: 'not JSON' },
        },
      },
    },
  },
  components: {
    schemas: {
      ThingCreate: {
        type: 'object',
        required: ['name', 'email', 'kind'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 20, 'x-state': { unique: 'ignore-case' } },
          email: { type: 'string', format: 'email', maxLength: 40, 'x-state': { unique: true } },
          kind: { type: 'string', enum: KINDS },
        },
      },
    },
  },
} as unknown as OpenApiDocument;

const validator = new SpecValidator(spec);
const body = {
  node: { $ref: '#/components/schemas/ThingCreate' },
  pointer: '#/components/schemas/ThingCreate',
};

/**
 * Right about names and e-mails (a taken one is a conflict, checked first), wrong about the rest: any
 * string is stored as the `kind`, and a body that is not UTF-8 is decoded leniently and taken.
 */
function lenientServer(): (request: IncomingMessage, response: ServerResponse) => void {
  const taken = new Set<string>();
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const send = (status: number) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      let thing: unknown;
      try {
        thing = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400);
      }
      const { name, email, kind } = (thing ?? {}) as Record<string, unknown>;
      if (typeof name !== 'string' || typeof email !== 'string' || typeof kind !== 'string') return send(400);
      const keys = [`name ${name.toLowerCase()}`, `email ${email}`];
      if (keys.some((key) => taken.has(key))) return send(409);
      if ([...name].length < 1 || [...name].length > 20 || !/^[^@\s\p{Cc}]+@[^@\s\p{Cc}]+$/u.test(email))
        return send(400);
      for (const key of keys) taken.add(key);
      return send(201);
    });
  };
}

describe('fresh unique values', () => {
  it('go into every unique field a request carries, but the one it tests and a broken one', () => {
    const sent = { name: 'one', email: 'one@example.com', kind: 'a' };
    expect(withFreshUniques(validator, body, sent, 'run1')).toEqual({
      value: { name: 'one run1', email: 'one+run1@example.com', kind: 'a' },
    });
    expect(withFreshUniques(validator, body, sent, 'run2', (name) => name === 'name')).toEqual({
      value: { name: 'one', email: 'one+run2@example.com', kind: 'a' },
      stale: 'name',
    });
    // A value at its maxLength is cut to make room for the tag; a broken one stays as it is.
    expect(withFreshUniques(validator, body, { ...sent, name: 'x'.repeat(20), email: 42 }, 'run3')).toEqual({
      value: { ...sent, name: `${'x'.repeat(15)} run3`, email: 42 },
      stale: 'email',
    });
  });
});

describe('a conflict over a value that was not fresh', () => {
  const client = new ContractClient({ validator, baseUrl: 'http://127.0.0.1:9' });
  const operation = validator.operation('createThing');
  const answer = (status: number): CallResult => ({
    status,
    headers: new Headers({ 'content-type': 'application/json' }),
    text: '{}',
    json: {},
    operation,
    request: { method: 'POST', url: 'http://127.0.0.1:9/things', headers: {} },
    url: 'http://127.0.0.1:9/things',
    problems: [],
  });
  const verdicts = (status: number, stale?: string) => {
    const session = new Session({
      api: 'things',
      validator,
      client,
      checks: new Set(CHECK_NAMES),
      seed: 1,
      maxExamples: 1,
      runId: 'run',
      allowNul: true,
    });
    judgeCall(session, answer(status), { valid: false, violates: 'kind: not one of the enum' }, { stale });
    return session
      .report({ target: 'things', startedAt: '', durationMs: 0, phases: [] })
      .results.filter((result) => result.check === 'negative_data_rejection')
      .map((result) => `${result.outcome} ${result.runs}`);
  };

  it('is neither a pass nor a failure of the negative request', () => {
    expect(verdicts(409, 'name')).toEqual([]);
    expect(verdicts(409)).toEqual(['passed 1']);
    expect(verdicts(201, 'name')).toEqual(['failed 1']);
  });
});

describe('against a server that stores what it should refuse', () => {
  let baseUrl: string;
  const server = createServer(lenientServer());

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  const run = (phase: 'coverage' | 'fuzz', seed: number) =>
    runContractTests({
      api: 'things',
      target: baseUrl,
      validator,
      client: new ContractClient({ validator, baseUrl }),
      phases: [phase],
      checks: ['negative_data_rejection', 'malformed_json_body'],
      maxExamples: 30,
      seed,
    });
  const found = (failures: ReturnType<typeof failuresOf>) =>
    failures.map((failure) => `${failure.check}: ${failure.message.split(' (')[1]?.split(':')[0]}`);

  it('coverage: a kind outside the enum, though each request before it took a name and an e-mail', async () => {
    const report = await run('coverage', 1);
    expect(report.fatal).toBeUndefined();
    expect(found(failuresOf(report))).toContain('negative_data_rejection: body');
    expect(failuresOf(report).some((failure) => failure.message.includes('kind: not one of the enum'))).toBe(
      true,
    );
  });

  it('fuzz: a body that is not UTF-8, recorded from the answer it got when first sent', async () => {
    for (const seed of [1, 2, 3]) {
      const report = await run('fuzz', seed);
      expect(report.fatal).toBeUndefined();
      const malformed = failuresOf(report).filter((failure) => failure.check === 'malformed_json_body');
      expect(malformed.map((failure) => failure.status)).toContain(201);
    }
  });
});
