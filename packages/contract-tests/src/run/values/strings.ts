// Strings for a schema: its format, its pattern, or text of any kind (NUL only where allowed).

import type { JsonObject } from '@platform-api/validator';
import fc from 'fast-check';
import { CONTROL_CHARACTERS } from './noise.js';
import type { GenerationOptions } from './validity.js';

export function strings(node: JsonObject, options: GenerationOptions): fc.Arbitrary<string> {
  const minLength = typeof node.minLength === 'number' ? node.minLength : 0;
  const maxLength = typeof node.maxLength === 'number' ? node.maxLength : Math.max(minLength, 40);
  const fits = (value: string) => {
    const length = [...value].length;
    return length >= minLength && length <= maxLength;
  };
  const format = typeof node.format === 'string' ? FORMATS[node.format] : undefined;
  if (format) return format.filter(fits);
  if (typeof node.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(node.pattern, 'u')).filter(fits);
    } catch {
      // A pattern fast-check cannot invert: generic strings, filtered by validity upstream.
    }
  }
  const allowNul = options.allowNul !== false;
  // Mostly printable ASCII, some of any Unicode and some control characters (which any Unicode almost
  // never picks); text travelling in a URL or header stays printable.
  const unit =
    options.location && options.location !== 'body'
      ? fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~')
      : fc.oneof(
          { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }), weight: 6 },
          { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 3 },
          { arbitrary: fc.constantFrom(...CONTROL_CHARACTERS), weight: 1 },
          { arbitrary: fc.constant('\u0000'), weight: allowNul ? 1 : 0 },
        );
  return fc
    .string({ unit: unit as fc.Arbitrary<string>, minLength, maxLength })
    .filter((value) => allowNul || !value.includes('\u0000'));
}

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/);
export const FORMATS: Record<string, fc.Arbitrary<string>> = {
  email: fc.tuple(word, word).map(([local, domain]) => `${local}@${domain}.example.com`),
  'date-time': fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  date: fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((date) => date.toISOString().slice(0, 10)),
  time: fc
    .date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2000-01-02') })
    .map((date) => date.toISOString().slice(11)),
  uri: fc.tuple(word, word).map(([host, path]) => `https://${host}.example.com/${path}`),
  'uri-reference': fc.tuple(word, word).map(([host, path]) => `https://${host}.example.com/${path}`),
  url: fc.tuple(word, word).map(([host, path]) => `https://${host}.example.com/${path}`),
  uuid: fc.uuid(),
  hostname: word.map((name) => `${name}.example.com`),
  ipv4: fc.ipV4(),
  ipv6: fc.ipV6(),
  byte: fc.base64String(),
};
