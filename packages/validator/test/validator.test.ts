// The shared validator must catch each kind of non-conformance; a checker that cannot fail is no check.
import { describe, expect, it } from 'vitest';
import { type OpenApiDocument, SpecValidator } from '../src/index.js';

const document: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        responses: {
          '200': {
            description: 'ok',
            headers: { 'X-Total': { required: true, schema: { type: 'integer', minimum: 0 } } },
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Thing' },
                example: { id: 1, name: 'a' },
              },
            },
          },
          '204': { description: 'empty' },
          '4XX': { $ref: '#/components/responses/Error' },
        },
      },
    },
    '/things/special': {
      get: { operationId: 'getSpecialThing', responses: { '200': { description: 'ok' } } },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'name'],
        properties: {
          id: { type: 'integer', format: 'int32' },
          name: { type: 'string' },
          at: { type: 'string', format: 'date-time' },
        },
        additionalProperties: false,
        examples: [{ id: 2, name: 'b' }, { id: 'wrong' }],
      },
    },
    responses: {
      Error: {
        description: 'error',
        content: { 'application/json': { schema: { type: 'object', required: ['code'] } } },
      },
    },
  },
};

const validator = new SpecValidator(document);
const getThing = validator.operation('getThing');
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-total': '1', ...headers }),
  body: JSON.stringify(body),
});
const checks = (problems: { check: string }[]) => problems.map((problem) => problem.check);

describe('SpecValidator', () => {
  it('accepts a conforming response', () => {
    expect(
      validator.validateResponse(getThing, json(200, { id: 1, name: 'a', at: '2026-01-01T00:00:00Z' })),
    ).toEqual([]);
  });

  it('reports an undocumented status', () => {
    expect(checks(validator.validateResponse(getThing, json(302, {})))).toEqual(['status_code_conformance']);
  });

  it('matches status ranges through shared $ref responses', () => {
    expect(validator.validateResponse(getThing, json(404, { code: 'x' }))).toEqual([]);
    expect(checks(validator.validateResponse(getThing, json(404, { nope: 1 })))).toEqual([
      'response_schema_conformance',
    ]);
  });

  it('reports a server error even when undocumented statuses are otherwise the problem', () => {
    expect(checks(validator.validateResponse(getThing, json(500, {})))).toEqual([
      'not_a_server_error',
      'status_code_conformance',
    ]);
  });

  it('reports an undocumented content type and a body where none is documented', () => {
    const html = {
      status: 200,
      headers: new Headers({ 'content-type': 'text/html', 'x-total': '1' }),
      body: '<p>',
    };
    expect(checks(validator.validateResponse(getThing, html))).toEqual(['content_type_conformance']);
    expect(checks(validator.validateResponse(getThing, json(204, { id: 1 })))).toEqual([
      'content_type_conformance',
    ]);
  });

  it('reports schema violations: wrong type, missing field, extra field, bad format, not JSON', () => {
    expect(checks(validator.validateResponse(getThing, json(200, { id: 'x', name: 'a' })))).toEqual([
      'response_schema_conformance',
    ]);
    expect(checks(validator.validateResponse(getThing, json(200, { id: 1 })))).toEqual([
      'response_schema_conformance',
    ]);
    expect(
      checks(validator.validateResponse(getThing, json(200, { id: 1, name: 'a', extra: true }))),
    ).toEqual(['response_schema_conformance']);
    expect(
      checks(validator.validateResponse(getThing, json(200, { id: 1, name: 'a', at: 'yesterday' }))),
    ).toEqual(['response_schema_conformance']);
    expect(checks(validator.validateResponse(getThing, json(200, { id: 2 ** 40, name: 'a' })))).toEqual([
      'response_schema_conformance',
    ]);
    const broken = { ...json(200, {}), body: '{"id":' };
    expect(checks(validator.validateResponse(getThing, broken))).toEqual(['response_schema_conformance']);
  });

  it('reports missing required headers and header values that do not match their schema', () => {
    const response = json(200, { id: 1, name: 'a' });
    response.headers.delete('x-total');
    expect(checks(validator.validateResponse(getThing, response))).toEqual(['response_headers_conformance']);
    expect(
      checks(validator.validateResponse(getThing, json(200, { id: 1, name: 'a' }, { 'x-total': '-3' }))),
    ).toEqual(['response_headers_conformance']);
  });

  it('finds operations by concrete path, literal segments first, trailing slash tolerated', () => {
    expect(validator.findOperation('GET', '/things/42')?.operationId).toBe('getThing');
    expect(validator.findOperation('get', '/things/special/')?.operationId).toBe('getSpecialThing');
    expect(validator.findOperation('POST', '/things/42')).toBeUndefined();
  });
});

describe('an anyOf or oneOf that fails: the errors of the branch the value was meant for', () => {
  const person = {
    type: 'object',
    required: ['id', 'name', 'email'],
    // `password: false`: a boolean schema among the properties, which fixes no value.
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      email: { type: 'string' },
      password: false,
    },
    additionalProperties: false,
  };
  const deleted = {
    type: 'object',
    required: ['id', 'deleted'],
    properties: { id: { type: 'integer' }, name: { type: 'string' }, deleted: { const: true } },
    additionalProperties: false,
  };
  const alternatives = new SpecValidator({
    openapi: '3.1.0',
    paths: {},
    components: {
      schemas: {
        Deleted: deleted,
        Person: person,
        PersonOrDeleted: {
          anyOf: [{ $ref: '#/components/schemas/Deleted' }, { $ref: '#/components/schemas/Person' }],
        },
        Team: {
          type: 'object',
          properties: { lead: { $ref: '#/components/schemas/PersonOrDeleted' } },
        },
        Shape: {
          oneOf: [
            {
              type: 'object',
              required: ['kind', 'radius'],
              properties: { kind: { const: 'circle' }, radius: { type: 'number' } },
            },
            {
              type: 'object',
              required: ['kind', 'side'],
              properties: { kind: { const: 'square' }, side: { type: 'number' } },
            },
          ],
        },
      },
    },
  });
  const errors = (name: string, value: unknown) =>
    alternatives.validateAt(`#/components/schemas/${name}`, value);

  it('a live one missing a field is held to the live branch, not told it lacks `deleted`', () => {
    expect(errors('PersonOrDeleted', { id: 1, name: 'a' })).toEqual([
      `body must have required property 'email' {"missingProperty":"email"}`,
    ]);
    expect(errors('PersonOrDeleted', { id: 1, deleted: true, extra: 1 })).toEqual([
      'body must NOT have additional properties {"additionalProperty":"extra"}',
    ]);
  });

  it('inside a property, and in a oneOf by the field that tells its branches apart', () => {
    expect(errors('Team', { lead: { id: 'x', name: 'a', email: 'e' } })).toEqual([
      '/lead/id must be integer {"type":"integer"}',
    ]);
    expect(errors('Shape', { kind: 'square', radius: 2 })).toEqual([
      `body must have required property 'side' {"missingProperty":"side"}`,
    ]);
  });

  it('holds a value of another type to the first branch, and reports nothing for one that fits a branch', () => {
    expect(errors('PersonOrDeleted', 'x')).toEqual(['body must be object {"type":"object"}']);
    expect(errors('PersonOrDeleted', { id: 1, name: 'a', email: 'e' })).toEqual([]);
  });
});
