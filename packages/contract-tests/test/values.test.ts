// The fuzzing breadth of the generators: unknown properties (names and values with control characters and
// U+0000, never U+0000 with allowNul false), control characters in strings, and JSON bodies that are no
// JSON text — each classified valid or invalid as the schema (Ajv) says.
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  coverageValues,
  invalidValues,
  type OpenApiDocument,
  SpecValidator,
  toCurl,
  validValues,
} from '../src/index.js';
import { isJsonText, malformedBodies, nonUtf8Json, truncatedJson } from '../src/run/malformed-bodies.js';
import { negativeRequests } from '../src/run/requests.js';

const document: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/things': {
      post: {
        operationId: 'createThing',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Closed' } } },
        },
        responses: { '201': { description: 'created' } },
      },
    },
  },
  components: {
    schemas: {
      Open: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', maxLength: 20 } },
      },
      Closed: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', maxLength: 20 } },
      },
      Unevaluated: {
        type: 'object',
        required: ['name'],
        unevaluatedProperties: false,
        properties: { name: { type: 'string' } },
      },
      Code: { type: 'string', pattern: '^[a-z]+$' },
      WithCode: {
        type: 'object',
        required: ['code'],
        properties: { code: { $ref: '#/components/schemas/Code' } },
      },
      Free: { type: 'string', maxLength: 30 },
      Members: {
        type: 'object',
        required: ['ids', 'pair'],
        properties: {
          ids: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 1, maximum: 9 } },
          pair: { type: 'array', minItems: 2, items: { type: 'integer', minimum: 1 } },
          role: { enum: ['owner', 'member'] },
          note: { type: 'string', maxLength: 30, pattern: '^[b-z]*$' },
        },
      },
    },
  },
};

const validator = new SpecValidator(document);
const schema = (name: string) => ({
  node: { $ref: `#/components/schemas/${name}` },
  pointer: `#/components/schemas/${name}`,
});
const isValid = (name: string, value: unknown) =>
  validator.validateAt(`#/components/schemas/${name}`, value).length === 0;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const CONTROL = /[\u0001-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const CONTROL_OR_NUL = /[\u0000-\u001f\u007f]/;
const unknownNames = (value: unknown) =>
  Object.keys(value as object).filter((key) => key !== 'name' && key !== 'code');

describe('positive values', () => {
  it('give open objects unknown properties, some named with control characters or U+0000 (none with allowNul false)', () => {
    const samples = fc.sample(validValues(validator, schema('Open')), { numRuns: 300, seed: 3 });
    const names = samples.flatMap(unknownNames);
    expect(names.length).toBeGreaterThan(30);
    expect(names.some((name) => CONTROL.test(name))).toBe(true);
    expect(names.some((name) => name.includes('\u0000'))).toBe(true);
    for (const sample of samples) expect(isValid('Open', sample)).toBe(true);
    const withoutNul = fc.sample(validValues(validator, schema('Open'), { allowNul: false }), {
      numRuns: 300,
      seed: 3,
    });
    expect(withoutNul.flatMap(unknownNames).some((name) => name.includes('\u0000'))).toBe(false);
  });

  it('never give closed objects (additionalProperties or unevaluatedProperties false) one', () => {
    for (const name of ['Closed', 'Unevaluated']) {
      const samples = fc.sample(validValues(validator, schema(name)), { numRuns: 200, seed: 3 });
      expect(samples.flatMap(unknownNames)).toEqual([]);
    }
  });

  it('put control characters into free strings, and no U+0000 anywhere with allowNul false', () => {
    const free = fc.sample(validValues(validator, schema('Free')), { numRuns: 300, seed: 5 });
    expect(free.some((text) => CONTROL.test(text as string))).toBe(true);
    const withoutNul = fc.sample(validValues(validator, schema('Open'), { allowNul: false }), {
      numRuns: 300,
      seed: 5,
    });
    expect(unknownNames(Object.assign({}, ...withoutNul)).length).toBeGreaterThan(0);
    expect(JSON.stringify(withoutNul)).not.toContain('\\u0000');
  });
});

describe('negative values', () => {
  it('send a closed object an unknown property with control characters in its name, as invalid', () => {
    const invalid = invalidValues(validator, schema('Closed'));
    if (!invalid) throw new Error('no invalid values for a closed object');
    const samples = fc.sample(invalid, { numRuns: 300, seed: 9 });
    const unknown = samples.filter((sample) => sample.violates.startsWith('an unknown property'));
    expect(unknown.length).toBeGreaterThan(10);
    expect(unknown.some((sample) => unknownNames(sample.value).some((name) => CONTROL.test(name)))).toBe(
      true,
    );
    // The label names the property readably (escaped), whatever it holds.
    for (const sample of unknown) {
      expect(sample.violates).not.toMatch(CONTROL);
      expect(isValid('Closed', sample.value)).toBe(false);
    }
  });

  it('put a control character into a string its pattern forbids it in', () => {
    const invalid = invalidValues(validator, schema('WithCode'));
    if (!invalid) throw new Error('no invalid values for a pattern string');
    const samples = fc.sample(invalid, { numRuns: 300, seed: 9 });
    const control = samples.filter((sample) => sample.violates.includes('the control character'));
    expect(control.length).toBeGreaterThan(0);
    for (const sample of control) {
      expect((sample.value as { code: string }).code).toMatch(CONTROL_OR_NUL);
      expect(isValid('WithCode', sample.value)).toBe(false);
    }
  });
});

describe('coverage values', () => {
  const entry = (name: string, label: string, allowNul = true) =>
    coverageValues(validator, schema(name), { allowNul }).find((value) => value.label.startsWith(label));

  it('add an unknown property named with NUL and control characters: valid if open, invalid if closed', () => {
    const open = entry('Open', 'an unknown property "x-unlisted\\u0000');
    expect(open?.valid).toBe(true);
    expect(unknownNames(open?.value)).toEqual(['x-unlisted\u0000\u0001\u001f\u007f']);
    // And one without the NUL, so that a refusal of the first names its cause.
    const plain = entry('Open', 'an unknown property "x-unlisted\\u0001');
    expect(plain?.valid).toBe(true);
    expect(unknownNames(plain?.value)).toEqual(['x-unlisted\u0001\u001f\u007f']);
    const closed = entry('Closed', 'an unknown property "x-unlisted\\u0000');
    expect(closed?.valid).toBe(false);
    expect(entry('Unevaluated', 'an unknown property')?.valid).toBe(false);
    expect(unknownNames(entry('Open', 'an unknown property', false)?.value)).toEqual([
      'x-unlisted\u0001\u001f\u007f',
    ]);
  });

  it("puts each bound inside a body in place, the rest valid: a property's, an item's as a one-item array", () => {
    const values = coverageValues(validator, schema('Members'));
    const at = (label: string) => {
      const found = values.find((value) => value.label === label);
      if (found) expect(found.valid).toBe(true);
      return found?.value as Record<string, unknown> | undefined;
    };
    expect(at('ids: items: minimum (1)')?.ids).toEqual([1]);
    expect(at('ids: items: maximum (9) − 1')?.ids).toEqual([8]);
    expect(at('role: enum member "member"')?.role).toBe('member');
    // The longest `note` breaks its pattern: not sent as a bound, whose label would name the wrong fault.
    expect(at('note: maxLength (30)')).toBeUndefined();
    // One item is too few for `pair`: its items' bounds are not sent as one-item arrays.
    expect(at('pair: items: minimum (1)')).toBeUndefined();
  });

  it('put a control character into every string: valid where free, invalid where a pattern forbids it', () => {
    expect(entry('Open', 'the control character')?.valid).toBe(true);
    expect(entry('WithCode', 'the control character "\\u0000" in every string')?.valid).toBe(false);
    expect(entry('Open', 'the control character', false)?.label).toContain('"\\u0001"');
  });
});

describe('malformed JSON bodies', () => {
  const body = { name: 'abc', nested: { list: ['x', 'y'] } };

  it('cut a body short into something that is no JSON text, at any fraction', () => {
    for (const fraction of [0, 0.1, 0.5, 0.99, 1]) {
      const truncated = truncatedJson(body, fraction);
      expect(truncated && isJsonText(truncated.bytes)).toBe(false);
      expect(truncated?.bytes.length).toBeGreaterThan(0);
    }
    // A bare number is JSON at every cut: no truncation, the other malformation instead.
    expect(truncatedJson(12345, 0.5)).toBeUndefined();
  });

  it('put bytes that are not UTF-8 inside a string, the rest a valid JSON text', () => {
    const malformed = nonUtf8Json(body, 3, [0xc3, 0x28]);
    expect(isJsonText(malformed.bytes)).toBe(false);
    // Decoded leniently (U+FFFD), it parses: only the encoding is wrong.
    expect(JSON.parse(Buffer.from(malformed.bytes).toString('utf8'))).toMatchObject({ nested: {} });
    expect(malformedBodies(body).map((item) => item.label)).toEqual([
      expect.stringContaining('cut short'),
      expect.stringContaining('not UTF-8'),
    ]);
  });

  it('are among the fuzz phase negative requests of an operation with a JSON body', () => {
    const negative = negativeRequests(validator, validator.operation('createThing'));
    if (!negative) throw new Error('no negative requests for createThing');
    const requests = fc.sample(negative, {
      numRuns: 200,
      seed: 4,
    });
    const raw = requests.filter((request) => request.options.body instanceof Uint8Array);
    expect(raw.some((request) => request.violates?.includes('cut short'))).toBe(true);
    expect(raw.some((request) => request.violates?.includes('not UTF-8'))).toBe(true);
    for (const request of raw) expect(isJsonText(request.options.body as Uint8Array)).toBe(false);
  });

  it('reproduce byte for byte from their curl line', () => {
    const { bytes } = nonUtf8Json({ "it's": '100%\\' }, 0, [0xff, 0x00]);
    const curl = toCurl({ method: 'POST', url: 'http://x.invalid/', headers: {}, body: bytes });
    const printf = curl.match(/@<\((printf '.*')\)$/)?.[1];
    expect(printf).toBeDefined();
    const written = execFileSync('bash', ['-c', printf ?? 'exit 1']);
    expect(Buffer.compare(written, Buffer.from(bytes))).toBe(0);
  });
});
