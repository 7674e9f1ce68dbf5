// The one Ajv of this repository: JSON Schema 2020-12 (the dialect of OpenAPI 3.1) with ajv-formats, and
// a bundle registered whole under SPEC_ID so that every `#/components/...` reference resolves. The
// validator checks responses with it; the server validates requests with it (coercing path, query and
// header strings). OpenAPI-only keywords (example, discriminator, xml, externalDocs, x-*) are
// annotations, and formats ajv-formats does not know are not checked (strict: false).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument } from './openapi.js';

// ajv-formats ships CommonJS; under NodeNext its default export is the module namespace.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The `$id` a bundle is registered under; a schema taken out of the bundle refers into it by rebaseRefs. */
export const SPEC_ID = 'urn:platform-api:spec';

export interface SpecAjvOptions {
  /** Coerce strings to the schema's types (path, query and header values arrive as strings). */
  coerce?: boolean;
}

export function createSpecAjv(document: OpenApiDocument, options: SpecAjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    allowUnionTypes: true,
    coerceTypes: options.coerce ? 'array' : false,
    useDefaults: true,
    validateSchema: false,
    logger: false,
  });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: SPEC_ID });
  return ajv;
}

/** A deep copy of a schema taken out of the bundle, its local `$ref`s pointing into the registered bundle. */
export function rebaseRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebaseRefs);
  if (schema && typeof schema === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
      copy[key] =
        key === '$ref' && typeof value === 'string' && value.startsWith('#')
          ? `${SPEC_ID}${value}`
          : rebaseRefs(value);
    }
    return copy;
  }
  return schema;
}
