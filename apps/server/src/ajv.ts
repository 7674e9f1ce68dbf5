import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type OpenApiDocument, SPEC_ID } from './spec.js';

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/*
 * Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) with the whole bundle added once under SPEC_ID,
 * so every `platform.json#/components/...` ref resolves. OpenAPI-only keywords (example, discriminator,
 * xml, externalDocs, x-*) are annotations and ignored (strict: false).
 */
export function createSpecAjv(doc: OpenApiDocument, options: { coerce: boolean }): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    // Query and path values arrive as strings: coerce them to the schema's types.
    coerceTypes: options.coerce ? 'array' : false,
    useDefaults: true,
    validateSchema: false,
    logger: false,
  });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: SPEC_ID });
  return ajv;
}
