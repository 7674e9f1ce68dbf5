// collectExamples finds every example in a document, so an invalid one cannot hide.
import { describe, expect, it } from 'vitest';
import { collectExamples, type OpenApiDocument, SpecValidator } from '../src/index.js';

const document: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer' }, example: 'not-a-number' },
        ],
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Thing' },
                example: { id: 1, name: 'a' },
              },
            },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'integer' }, name: { type: 'string' } },
        examples: [{ id: 2, name: 'b' }, { id: 'wrong' }],
      },
    },
  },
};

describe('collectExamples', () => {
  it('collects parameter, media type and schema examples, so an invalid example is caught', () => {
    const validator = new SpecValidator(document);
    const examples = collectExamples(validator);
    const invalid = examples.filter(
      (example) => validator.validateAt(example.schemaPointer, example.value).length > 0,
    );
    expect(examples).toHaveLength(4);
    expect(invalid.map((example) => example.pointer).sort()).toEqual([
      '#/components/schemas/Thing/examples/1',
      '#/paths/~1things~1{id}/get/parameters/0/example',
    ]);
  });
});
