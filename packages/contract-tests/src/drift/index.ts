// Drift check: compares a server's own self-description — a WordPress-style route index
// (`GET /wp-json/?context=help`: every route as a regular expression, its methods and, per endpoint,
// the JSON Schema of each argument) — with the OpenAPI description of the same server. For every
// route both describe it compares methods and, per method, argument names, types, enums, defaults,
// bounds and requiredness (GET/DELETE arguments ↔ path and query parameters; POST/PUT/PATCH
// arguments ↔ path and query parameters or request body properties). Differences are data: the
// caller decides which are allowed (an allow-list with a reason per entry, for the versions it names)
// and which fail. Given the target's version, what the spec marks as newer (`x-wp-since`), older
// (`x-wp-before`) or never served (`x-wp-no-route`) is compared as that version has it.

export {
  type AllowEntry,
  appliesTo,
  describeDifference,
  type Triage,
  triageDifferences,
} from './allow-list.js';
export { compareRouteIndex } from './compare.js';
export { routeToTemplate } from './routes.js';
export type { ArgumentShape } from './shapes.js';
export type {
  ComparedRoute,
  Difference,
  DriftAspect,
  DriftOptions,
  DriftReport,
  ExpectedAbsence,
  RouteIndex,
  RouteIndexEntry,
} from './types.js';
