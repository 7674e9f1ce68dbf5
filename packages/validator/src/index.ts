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
  type Check,
  collectOperations,
  isJsonMediaType,
  type Operation,
  type Problem,
  type RequestToCheck,
  type ResponseToCheck,
  SpecValidator,
  templateToRegExp,
} from './validator.js';
