export { createSpecAjv, rebaseRefs, SPEC_ID, type SpecAjvOptions } from './ajv.js';
export { type BundleName, bundlePath, loadBundle } from './bundle.js';
export {
  escapePointerToken,
  getByPointer,
  HTTP_METHODS,
  type HttpMethod,
  isObject,
  type JsonObject,
  joinPointer,
  type Located,
  type OpenApiDocument,
  resolveLocal,
} from './openapi.js';
export {
  missingRequiredInOneOf,
  parseRequestBody,
  type RecordsRule,
  type RequestFields,
  recordsRuleOf,
} from './request-rules.js';
export {
  type Check,
  collectOperations,
  isJsonMediaType,
  type MediaTypeObject,
  matchMediaType,
  type Operation,
  type ParameterObject,
  type Problem,
  type RequestToCheck,
  type ResponseToCheck,
  SpecValidator,
  templateToRegExp,
} from './validator.js';
