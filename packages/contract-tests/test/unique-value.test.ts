// uniqueValue tags free-text strings of a request with the run's tag, and only where the result still
// fits the schema: a string branch of an anyOf keeps its enum or pattern.
import { describe, expect, it } from 'vitest';
import { type OpenApiDocument, SpecValidator } from '../src/index.js';
import { uniqueValue } from '../src/run/phases/examples.js';

const document: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {},
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 50 },
          flag: { anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }] },
          number: { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^[0-9]{1,18}$' }] },
        },
      },
    },
  },
} as OpenApiDocument;

describe('uniqueValue', () => {
  const validator = new SpecValidator(document);
  const thing = { node: { $ref: '#/components/schemas/Thing' }, pointer: '/components/schemas/Thing' };

  it('tags free text, and leaves a string that the tag would make invalid as it is', () => {
    expect(uniqueValue(validator, thing, { name: 'Ops', flag: 'true', number: '42' }, 'run1')).toEqual({
      name: 'Ops run1',
      flag: 'true',
      number: '42',
    });
  });
});
