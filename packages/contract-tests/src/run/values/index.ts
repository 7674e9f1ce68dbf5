// Values from JSON Schema 2020-12 (as the bundles use it), with fast-check: schema-valid values
// (positive), values that break one constraint (negative, as mutations of a valid value), and the
// deterministic boundary list of the coverage phase. Every value is checked against the schema with
// the spec's own Ajv before it is used — a generator's mistake becomes a filtered value, never a false
// report. Parameters travel as text, so their values are checked as a server sees them: coerced.

export { type CoverageValue, coverageValues } from './coverage.js';
export { type InvalidValue, invalidValues } from './negative.js';
export { GenerationError, validValues } from './positive.js';
export { sampleOne } from './sample.js';
export { requestBodySchema } from './schemas.js';
export { type Freshened, type UniqueField, uniqueFields, withFreshUniques } from './unique.js';
export type { GenerationOptions } from './validity.js';
