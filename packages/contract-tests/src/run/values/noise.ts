// Text that careless servers mishandle: control characters (U+0001–U+001F, U+007F) and U+0000 (only
// where the run allows it: `allowNul`), in string values and in the names of properties a schema does not
// list (a server that echoes a field name into its error body has to escape them).
import fc from 'fast-check';
import type { GenerationOptions } from './validity.js';

/** U+0001–U+001F and U+007F: what JSON must escape in strings, plus DEL. */
export const CONTROL_CHARACTERS: readonly string[] = [
  ...Array.from({ length: 0x1f }, (_, index) => String.fromCharCode(index + 1)),
  '\u007f',
];

const allowsNul = (options: GenerationOptions) => options.allowNul !== false;

/** One control character, U+0000 among them when allowed. */
export function controlCharacter(options: GenerationOptions): fc.Arbitrary<string> {
  return fc.constantFrom(...(allowsNul(options) ? ['\u0000'] : []), ...CONTROL_CHARACTERS);
}

/** A property no schema names, and its value. */
export interface UnknownProperty {
  name: string;
  value: unknown;
}

/** What a mutation may use beyond its base value: random in the fuzz phase, fixed in coverage. */
export interface Noise {
  property: UnknownProperty;
  /** One control character, for strings whose pattern or format forbids it. */
  control: string;
}

/** Mostly letters, some control characters: names and values a reader can still tell apart. */
function noisyText(options: GenerationOptions, prefix: string): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_-'), weight: 3 },
    { arbitrary: controlCharacter(options), weight: 1 },
  );
  return fc.string({ unit, minLength: 1, maxLength: 10 }).map((text) => `${prefix}${text}`);
}

/**
 * An unknown property with a random name and value, both holding control characters (and U+0000 when
 * allowed) now and then. The prefix keeps the name apart from the names schemas list (one that still
 * collides is not added).
 */
export function unknownProperty(options: GenerationOptions): fc.Arbitrary<UnknownProperty> {
  return fc
    .tuple(noisyText(options, 'x-unlisted'), noisyText(options, ''))
    .map(([name, value]) => ({ name, value }));
}

export function noise(options: GenerationOptions): fc.Arbitrary<Noise> {
  return fc
    .tuple(unknownProperty(options), controlCharacter(options))
    .map(([property, control]) => ({ property, control }));
}

/** The coverage phase's one noise: every kind of character above at once, deterministic. */
export function fixedNoise(options: GenerationOptions): Noise {
  const nul = allowsNul(options) ? '\u0000' : '';
  return {
    property: { name: `x-unlisted${nul}\u0001\u001f\u007f`, value: `value${nul}\u0001\u001b\u007f` },
    control: allowsNul(options) ? '\u0000' : '\u0001',
  };
}

/** Text in double quotes with every control character escaped (JSON.stringify leaves U+007F raw). */
export function quoted(text: string): string {
  return JSON.stringify(text).replaceAll('\u007f', '\\u007f');
}

/** A string with a control character put in its middle. */
export function withControlCharacter(text: string, control: string): string {
  const middle = Math.floor(text.length / 2);
  return `${text.slice(0, middle)}${control}${text.slice(middle)}`;
}

/** A value with a control character in every string it holds; property names stay the schema's. */
export function withControlCharacters(value: unknown, control: string): unknown {
  if (typeof value === 'string') return withControlCharacter(value, control);
  if (Array.isArray(value)) return value.map((item) => withControlCharacters(item, control));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withControlCharacters(item, control)]),
    );
  return value;
}
