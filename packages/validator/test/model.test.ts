// The spec model the server, the contract suite, the mock's tests and the generator share: the bundle
// loader, the one Ajv factory and the operation walk.
import { describe, expect, it } from 'vitest';
import {
  collectOperations,
  createSpecAjv,
  loadBundle,
  type OpenApiDocument,
  rebaseRefs,
  SPEC_ID,
} from '../src/index.js';

const document: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/things/{id}': {
      parameters: [
        { $ref: '#/components/parameters/Id' },
        { name: 'verbose', in: 'query', schema: { type: 'boolean' } },
      ],
      put: {
        operationId: 'putThing',
        parameters: [{ name: 'verbose', in: 'query', required: true, schema: { type: 'integer' } }],
        requestBody: { $ref: '#/components/requestBodies/Thing' },
        responses: {
          '204': { description: 'replaced' },
          '201': { $ref: '#/components/responses/Created' },
          '400': { description: 'bad' },
        },
      },
    },
  },
  components: {
    parameters: {
      Id: { name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int32' } },
    },
    requestBodies: {
      Thing: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
      },
    },
    responses: { Created: { description: 'created' } },
    schemas: {
      Thing: {
        type: 'object',
        properties: { data: { type: 'string', format: 'byte' }, count: { type: 'integer', format: 'int32' } },
      },
    },
  },
};

describe('collectOperations', () => {
  const [operation] = collectOperations(document);

  it('merges path-level parameters, the operation winning, references followed', () => {
    expect(operation?.parameters.map((p) => [p.node.in, p.node.name, p.node.schema])).toEqual([
      ['path', 'id', { type: 'integer', format: 'int32' }],
      ['query', 'verbose', { type: 'integer' }],
    ]);
  });

  it('resolves the request body and the responses, and names the success status', () => {
    expect(operation?.requestBody).toMatchObject({
      required: true,
      pointer: '#/components/requestBodies/Thing',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
    });
    expect(operation?.responses['201']).toEqual({ description: 'created' });
    expect(operation?.successStatus).toBe(201);
  });
});

describe('createSpecAjv', () => {
  const ajv = createSpecAjv(document);
  const thing = ajv.compile(rebaseRefs({ $ref: '#/components/schemas/Thing' }) as object);

  it('checks formats with ajv-formats: base64 for byte, the int32 range', () => {
    expect(thing({ data: 'aGVsbG8=' })).toBe(true);
    expect(thing({ data: 'not base64!' })).toBe(false);
    expect(thing({ count: 2 ** 31 - 1 })).toBe(true);
    expect(thing({ count: 2 ** 31 })).toBe(false);
  });

  it('coerces strings only when asked (path, query and header values)', () => {
    const strict = ajv.compile({ type: 'integer' });
    const coercing = createSpecAjv(document, { coerce: true }).compile({ type: 'integer' });
    expect(strict('12')).toBe(false);
    expect(coercing('12')).toBe(true);
  });

  it('registers the bundle under SPEC_ID', () => {
    expect(rebaseRefs({ items: { $ref: '#/components/schemas/Thing' } })).toEqual({
      items: { $ref: `${SPEC_ID}#/components/schemas/Thing` },
    });
    expect(ajv.getSchema(`${SPEC_ID}#/components/schemas/Thing`)).toBeTypeOf('function');
  });
});

describe('loadBundle', () => {
  it('reads the bundles of @platform-api/spec by name', () => {
    for (const name of ['platform', 'platform-public', 'site'] as const) {
      const bundle = loadBundle(name);
      expect(bundle.openapi).toMatch(/^3\.1\./);
      expect(collectOperations(bundle).length).toBeGreaterThan(10);
    }
  });
});
