// Coverage: a deterministic list of boundary values and one of each mutation.

import { isObject, type Located, type SpecValidator } from '@platform-api/validator';
import fc from 'fast-check';
import { mutations } from './negative.js';
import { generate, validValues } from './positive.js';
import { child, folded, resolveSchema } from './schemas.js';
import { FORMATS } from './strings.js';
import { type GenerationOptions, isValid } from './validity.js';

export interface CoverageValue {
  value: unknown;
  valid: boolean;
  label: string;
}

export function coverageValues(
  validator: SpecValidator,
  schema: Located<unknown>,
  options: GenerationOptions = {},
  seed = 1,
): CoverageValue[] {
  const located = folded(validator, resolveSchema(validator, schema));
  const node = located.node;
  const values: CoverageValue[] = [];
  const seen = new Set<string>();
  const add = (label: string, value: unknown) => {
    const key = JSON.stringify(value);
    if (value === undefined || seen.has(key) || values.length >= 60) return;
    seen.add(key);
    values.push({ value, valid: isValid(validator, schema.pointer, value, options), label });
  };
  const [base] = fc.sample(validValues(validator, schema, options), { numRuns: 1, seed });
  if (Array.isArray(node.enum))
    for (const member of node.enum) add(`enum member ${JSON.stringify(member)}`, member);
  for (const [bound, delta] of [
    ['minimum', 1],
    ['maximum', -1],
  ] as const) {
    const value = node[bound];
    if (typeof value === 'number') {
      add(`${bound} (${value})`, value);
      add(`${bound} (${value}) ${delta > 0 ? '+' : '−'} 1`, value + delta);
    }
  }
  if (typeof node.minLength === 'number') add(`minLength (${node.minLength})`, 'a'.repeat(node.minLength));
  if (typeof node.maxLength === 'number') add(`maxLength (${node.maxLength})`, 'a'.repeat(node.maxLength));
  if (typeof node.format === 'string' && FORMATS[node.format]) {
    const [formatted] = fc.sample(FORMATS[node.format]!, { numRuns: 1, seed });
    add(`format ${node.format}`, formatted);
  }
  if (base !== undefined) add('a valid value', base);
  if (isObject(base) && isObject(node.properties)) {
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    for (const name of Object.keys(node.properties)) {
      if (required.has(name)) continue;
      const [alone] = fc.sample(generate(validator, child(located, 'properties', name), options, 1), {
        numRuns: 1,
        seed,
      });
      const minimal = Object.fromEntries(Object.entries(base).filter(([key]) => required.has(key)));
      add(`${name} alone with the required properties`, { ...minimal, [name]: alone });
    }
  }
  for (const mutation of mutations(validator, schema, options, 0)) {
    add(mutation.label, mutation.apply(structuredClone(base)));
  }
  return values;
}
