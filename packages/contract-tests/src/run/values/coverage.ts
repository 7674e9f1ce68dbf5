// Coverage: a deterministic list of boundary values and one of each mutation.

import { isObject, type Located, type SpecValidator } from '@platform-api/validator';
import fc from 'fast-check';
import { describeMutation, mutations } from './negative.js';
import { fixedNoise, quoted, withControlCharacters } from './noise.js';
import { generate, validValues } from './positive.js';
import { sampleOne } from './sample.js';
import { child, folded, resolveSchema } from './schemas.js';
import { FORMATS } from './strings.js';
import { nulOutsideSchema } from './undetermined.js';
import { type GenerationOptions, isValid } from './validity.js';

export interface CoverageValue {
  value: unknown;
  valid: boolean;
  label: string;
  /** Why a valid value's acceptance is judged neither way (U+0000 where no schema speaks: undetermined.ts). */
  undetermined?: string;
  /**
   * The properties of an object value that hold what the case's base value holds: what the case does not
   * test, so a fresh unique value may replace them (values/unique.ts).
   */
  unchanged?: string[];
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
    const valid = isValid(validator, schema.pointer, value, options);
    const undetermined =
      valid && nulOutsideSchema(validator, schema, value)
        ? 'U+0000 in a property no schema describes'
        : undefined;
    const unchanged = unchangedProperties(base, value);
    values.push({
      value,
      valid,
      label,
      ...(undetermined ? { undetermined } : {}),
      ...(unchanged ? { unchanged } : {}),
    });
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
  const format = typeof node.format === 'string' ? FORMATS[node.format] : undefined;
  if (format) add(`format ${node.format}`, sampleOne(format, seed));
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
  const noise = fixedNoise(options);
  if (!options.location || options.location === 'body') {
    // An unknown property with U+0000 and control characters, and one without U+0000: refused where the
    // object is closed, else a positive (with U+0000 undetermined: undetermined.ts). Either way the answer
    // must not choke on them, nor echo them raw.
    const withoutNul = fixedNoise({ ...options, allowNul: false }).property;
    for (const { name, value } of [noise.property, withoutNul]) {
      if (isObject(base) && !(isObject(node.properties) && name in node.properties))
        add(`an unknown property ${quoted(name)}`, { ...base, [name]: value });
    }
    add(
      `the control character ${quoted(noise.control)} in every string`,
      withControlCharacters(base, noise.control),
    );
  }
  for (const mutation of mutations(validator, schema, options, 0)) {
    add(describeMutation(mutation, noise), mutation.apply(structuredClone(base), noise));
  }
  return values;
}

function unchangedProperties(base: unknown, value: unknown): string[] | undefined {
  if (!isObject(base) || !isObject(value)) return undefined;
  return Object.keys(value).filter(
    (name) => name in base && JSON.stringify(base[name]) === JSON.stringify(value[name]),
  );
}
