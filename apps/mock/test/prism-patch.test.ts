// What patches/@stoplight__prism-http@5.12.0.patch changes in Prism, asserted against the mocks without
// memory (Prism alone answers them; the mocks with memory take only the tokens they issued):
// - any case of an auth scheme is accepted (RFC 9110 §11.1; stoplightio/prism#2722, unmerged PR #2832),
//   and a request without credentials still answers 401;
// - a trailing slash names the same resource: every operation of both bundles answers its `/path/` form
//   exactly as its `/path` form (real clients call `POST /v1/users/` and `GET /v1/groups/`).
// - (patches/@stoplight__prism-cli@5.14.2.patch) a request body that its log line repair mangled no longer
//   crashes Prism.
// Without the patch, the lowercase and uppercase Bearer cases answer 401 and `/v1/users/` answers 405/400.
import { freePort } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockedApi, type MockServer, startMock } from '../src/index.js';
import {
  type BundleOperation,
  credentials,
  exampleRequest,
  loadBundle,
  operations,
} from './support/bundle-requests.js';

const mocks = new Map<MockedApi, MockServer>();

beforeAll(async () => {
  for (const api of ['platform', 'site'] as const)
    mocks.set(api, await startMock(api, { port: await freePort(), stateless: true }));
});
afterAll(async () => {
  await Promise.all([...mocks.values()].map((mock) => mock.close()));
});

function mockUrl(api: MockedApi): string {
  const mock = mocks.get(api);
  if (!mock) throw new Error(`${api} mock not started`);
  return mock.url;
}

/** The bundle's operations whose only security requirements use the given kind of scheme. */
function securedBy(api: MockedApi, kind: 'bearer' | 'basic'): BundleOperation[] {
  const bundle = loadBundle(api);
  return operations(bundle).filter((op) => {
    if (op.method !== 'get') return false;
    const requirements = (op.operation.security ?? bundle.security ?? []) as Record<string, unknown>[];
    if (requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0)) return false;
    const header = credentials(bundle, op).authorization ?? '';
    return header.toLowerCase().startsWith(`${kind} `);
  });
}

const cases = {
  bearer: ['Bearer', 'bearer', 'BEARER', 'bEaReR'],
  basic: ['Basic', 'basic', 'BASIC', 'bAsIc'],
} as const;

describe.each([
  ['platform', 'bearer'],
  ['platform', 'basic'],
  ['site', 'basic'],
] as const)('%s mock, %s auth scheme', (api, kind) => {
  const ops = securedBy(api, kind);

  it('has operations secured by that scheme', () => {
    expect(ops.length).toBeGreaterThan(0);
  });

  it.each(cases[kind])(
    'accepts the scheme written %s, and answers 401 without credentials',
    async (scheme) => {
      const bundle = loadBundle(api);
      for (const op of ops) {
        const request = exampleRequest(bundle, op);
        const url = `${mockUrl(api)}${request.path}${request.query}`;
        const schemes = { bearer: scheme, basic: scheme };
        const accepted = await fetch(url, { ...request.init, headers: credentials(bundle, op, schemes) });
        expect(accepted.status, `${op.operationId} with "${scheme}"`).toBeLessThan(300);
        expect(accepted.status, `${op.operationId} with "${scheme}"`).toBeGreaterThanOrEqual(200);
        await accepted.arrayBuffer();

        const anonymous = await fetch(url, { method: request.init.method });
        expect(anonymous.status, `${op.operationId} without credentials`).toBe(401);
        await anonymous.arrayBuffer();
      }
    },
  );

  it('still refuses another scheme', async () => {
    const bundle = loadBundle(api);
    const other = kind === 'bearer' ? 'basic' : 'bearer';
    for (const op of ops) {
      const request = exampleRequest(bundle, op);
      const wrong = credentials(bundle, op, { bearer: other, basic: other });
      const response = await fetch(`${mockUrl(api)}${request.path}${request.query}`, { headers: wrong });
      expect(response.status, `${op.operationId} with "${wrong.authorization}"`).toBe(401);
      await response.arrayBuffer();
    }
  });
});

describe.each(['platform', 'site'] as const)('%s mock, trailing slash', (api) => {
  const bundle = loadBundle(api);
  const ops = operations(bundle).filter((op) => op.template !== '/');

  it('answers every operation at `/path/` exactly as at `/path`', async () => {
    const succeeded: string[] = [];
    for (const op of ops) {
      const request = exampleRequest(bundle, op);
      const plain = await fetch(`${mockUrl(api)}${request.path}${request.query}`, request.init);
      const slashed = await fetch(`${mockUrl(api)}${request.path}/${request.query}`, request.init);
      const label = `${op.method.toUpperCase()} ${request.path}/ (${op.operationId})`;
      expect(slashed.status, label).toBe(plain.status);
      expect(slashed.headers.get('content-type'), label).toBe(plain.headers.get('content-type'));
      const [plainBody, slashedBody] = [await plain.text(), await slashed.text()];
      // Error bodies name the request path; success bodies are the spec's examples, identical.
      if (plain.ok) {
        expect(slashedBody, label).toBe(plainBody);
        succeeded.push(op.operationId);
      }
    }
    // The comparison means something only if most operations were served, not refused alike.
    expect(succeeded.length, `served: ${succeeded.join(', ')}`).toBeGreaterThan(ops.length / 2);
  });
});

describe('platform mock, the calls of real clients', () => {
  const bundle = loadBundle('platform');
  const ops = operations(bundle);

  it('serves create and list at `/v1/users/` and `/v1/groups/`', async () => {
    for (const operationId of ['createUser', 'listUsers', 'createGroup', 'listGroups']) {
      const op = ops.find((candidate) => candidate.operationId === operationId);
      if (!op) throw new Error(`${operationId} is not in the bundle`);
      const request = exampleRequest(bundle, op);
      const response = await fetch(`${mockUrl('platform')}${request.path}/${request.query}`, request.init);
      expect(response.ok, `${operationId} at ${request.path}/ answered ${response.status}`).toBe(true);
      await response.arrayBuffer();
    }
  });
});

describe('platform mock, a body Prism logs', () => {
  // Prism's CLI ran every log line through jsonrepair, which turns a valid line whose strings hold a `[`
  // into an array; the next line it printed from that crashed it, and every later answer was a 502.
  it('keeps answering after bodies whose strings hold brackets and braces', async () => {
    const url = `${mockUrl('platform')}/v1/chat/integrations`;
    // Each a body a fuzz run sent: its log line became an array, or no JSON at all.
    for (const channelIds of [['@}a['], ['x['], ['x}[']]) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Brackets',
          scope: 'CHANNEL_LIST',
          channelIds,
          headers: [],
          signDeliveries: true,
        }),
      });
      expect(response.status, JSON.stringify(channelIds)).toBeLessThan(500);
      await response.arrayBuffer();
    }
    const after = await fetch(url, { method: 'GET', headers: { authorization: 'Bearer any' } });
    expect(after.status).toBe(200);
  });
});
