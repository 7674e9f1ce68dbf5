import { describe, expect, it } from 'vitest';
import { handlers } from '../src/handlers/index.js';
import { fastifySchemaFor } from '../src/spec-routes.js';
import { doc, operations } from './helpers/spec-validator.js';

/** The bundle's operation of that id; throws when it has none (the test's own mistake). */
function operationNamed(id: string) {
  const op = operations.find((candidate) => candidate.operationId === id);
  if (!op) throw new Error(`the bundle has no operation ${id}`);
  return op;
}

describe('binding to the spec', () => {
  it('has a handler for every operation of the bundle', () => {
    const missing = operations.map((op) => op.operationId).filter((id) => !(id in handlers));
    expect(missing).toEqual([]);
  });

  it('has no handler without an operation in the bundle', () => {
    const ids = new Set(operations.map((op) => op.operationId));
    expect(Object.keys(handlers).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('lets subscriptions name exactly the event types the spec declares as webhooks', () => {
    // The server emits the webhooks' types (emit.ts is typed by them); subscriptions are validated
    // against ChatEventType: the two lists of the spec must agree.
    expect([...doc.components.schemas.ChatEventType.enum].sort()).toEqual(
      Object.keys(doc.webhooks ?? {}).sort(),
    );
  });

  it('derives every route schema from the operation (params, query, body per media type)', () => {
    const createUser = operationNamed('createUser');
    const schema = fastifySchemaFor(createUser) as Record<string, Record<string, unknown>>;
    expect(Object.keys(schema.body?.content ?? {})).toEqual(
      Object.keys(createUser.requestBody?.content ?? {}),
    );
    expect(Object.keys(schema.querystring?.properties ?? {})).toEqual(['sendInvite']);
    expect(createUser.successStatus).toBe(201);
  });

  it('knows the security requirement of every operation', () => {
    const schemes = new Set(Object.keys(doc.components.securitySchemes));
    for (const op of operations) {
      for (const requirement of op.security) {
        for (const scheme of Object.keys(requirement))
          expect(schemes.has(scheme), `${op.operationId}: ${scheme}`).toBe(true);
      }
    }
  });
});

describe('the response checker used by every test', () => {
  it('rejects bodies, statuses and headers the spec does not document', async () => {
    const { responseProblems } = await import('./helpers/spec-validator.js');
    const getUser = operationNamed('getUser');
    const json = new Headers({ 'content-type': 'application/json' });
    expect(responseProblems(getUser, 200, json, '{"id":"x"}')).not.toEqual([]);
    expect(responseProblems(getUser, 418, json, '{}')).not.toEqual([]);
    const createUser = operationNamed('createUser');
    const created =
      '{"id":1,"name":"A","email":"a@b.example","role":"Admin","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}';
    expect(responseProblems(createUser, 201, json, created)).toEqual([
      'createUser → 201: required header Location missing',
    ]);
  });
});
