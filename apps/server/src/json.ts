/*
 * JSON output of integers beyond 2^53 (employee numbers have up to 18 digits): handlers carry them as
 * bigint, and they are written as exact integer literals, never rounded and never quoted.
 */

export function containsBigInt(value: unknown): boolean {
  if (typeof value === 'bigint') return true;
  if (Array.isArray(value)) return value.some(containsBigInt);
  if (value && typeof value === 'object') return Object.values(value).some(containsBigInt);
  return false;
}

// Each bigint is first written as a marker string. Its NUL comes out of JSON.stringify escaped, as
// `\u0000`; text of ours can never hold a NUL (requests with one are refused), and a client's literal
// backslash-u is written with its backslash doubled, so only the markers match.
const MARKER = '\u0000bigint:';
const MARKED = /"\\u0000bigint:(-?\d+)"/g;

/** JSON.stringify, with bigints written as exact integers. */
export function stringifyExact(value: unknown): string {
  return JSON.stringify(value, (_key, item) =>
    typeof item === 'bigint' ? `${MARKER}${item}` : item,
  ).replace(MARKED, '$1');
}
