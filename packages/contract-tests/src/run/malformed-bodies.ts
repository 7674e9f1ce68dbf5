// JSON bodies that are not JSON, sent as bytes with the JSON content type: a valid body cut short, and a
// valid body with bytes that are not UTF-8 inside one of its strings (RFC 8259 §8.1: JSON exchanged
// between systems is UTF-8; a server that decodes leniently turns them into U+FFFD and accepts a body its
// client never meant). Either must be refused with a 4xx, and the refusal must still match the spec.
import fc from 'fast-check';

export interface MalformedBody {
  bytes: Uint8Array;
  /** What is wrong with it, as a failure names it. */
  label: string;
}

/** Byte sequences no UTF-8 decoder may accept: lone bytes, a bad continuation, overlong, a surrogate, too short. */
export const INVALID_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
];

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether the bytes are a JSON text (UTF-8, parsable). */
export function isJsonText(bytes: Uint8Array): boolean {
  try {
    JSON.parse(utf8.decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/**
 * The body's JSON cut after `fraction` of its bytes (at least one byte, never all): the nearest shorter cut
 * that is not itself JSON (`12345` cut to `12` still is). Undefined when every cut is JSON.
 */
export function truncatedJson(value: unknown, fraction: number): MalformedBody | undefined {
  const bytes = Buffer.from(JSON.stringify(value) ?? 'null', 'utf8');
  if (bytes.length < 2) return undefined;
  let cut = Math.min(bytes.length - 1, Math.max(1, Math.floor(bytes.length * fraction)));
  while (cut >= 1 && isJsonText(bytes.subarray(0, cut))) cut--;
  if (cut < 1) return undefined;
  return {
    bytes: new Uint8Array(bytes.subarray(0, cut)),
    label: `the JSON cut short after ${cut} of its ${bytes.length} bytes`,
  };
}

/**
 * Offsets just inside each string literal of a JSON text (after each opening quote), the values' before
 * the property names': a server that decodes leniently keeps a broken value (U+FFFD in a name it then
 * stores), where a broken name is mostly just an unknown property it ignores.
 */
function stringStarts(json: string): number[] {
  const values: number[] = [];
  const names: number[] = [];
  let start = -1;
  for (let index = 0; index < json.length; index++) {
    const char = json[index];
    if (start >= 0 && char === '\\') index++;
    else if (char === '"' && start < 0) start = index + 1;
    else if (char === '"') {
      // JSON.stringify writes no space before a name's colon.
      (json[index + 1] === ':' ? names : values).push(start);
      start = -1;
    }
  }
  return [...values, ...names];
}

/**
 * The body's JSON with an invalid UTF-8 sequence inside its `which`-th string (values first, then names;
 * modulo their number), or in front of it when it holds no string. Everything else about the body is valid.
 */
export function nonUtf8Json(value: unknown, which: number, sequence: readonly number[]): MalformedBody {
  const json = JSON.stringify(value) ?? 'null';
  const starts = stringStarts(json);
  const at = starts[which % Math.max(1, starts.length)] ?? 0;
  const before = Buffer.from(json.slice(0, at), 'utf8');
  const bytes = Buffer.concat([before, Buffer.from(sequence), Buffer.from(json.slice(at), 'utf8')]);
  const hex = sequence.map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
  return {
    bytes: new Uint8Array(bytes),
    label: `not UTF-8: the bytes ${hex} at byte ${before.length}`,
  };
}

/** The coverage phase's two: cut in half, and a lone 0xff inside the first string value. */
export function malformedBodies(value: unknown): MalformedBody[] {
  const truncated = truncatedJson(value, 0.5);
  return [...(truncated ? [truncated] : []), nonUtf8Json(value, 0, [0xff])];
}

/** The fuzz phase's: a random cut or a random invalid sequence in a random string of a valid body. */
export function malformedBody(values: fc.Arbitrary<unknown>): fc.Arbitrary<MalformedBody> {
  return fc.oneof(
    fc
      .tuple(values, fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(), fc.constantFrom(...INVALID_UTF8))
      // A body no cut breaks (a bare number) gets the other malformation instead.
      .map(
        ([value, fraction, which, sequence]) =>
          truncatedJson(value, fraction) ?? nonUtf8Json(value, which, sequence),
      ),
    fc
      .tuple(values, stringIndex, fc.constantFrom(...INVALID_UTF8))
      .map(([value, which, sequence]) => nonUtf8Json(value, which, sequence)),
  );
}

/** Mostly one of the first strings, which are values (stringStarts): where a lenient decoder shows. */
const stringIndex = fc.oneof(
  { arbitrary: fc.nat({ max: 1 }), weight: 3 },
  { arbitrary: fc.nat(), weight: 1 },
);
