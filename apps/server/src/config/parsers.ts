import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** A text an option does not accept; `detail` says why where "must be …" alone would not (a read error). */
export class Refused {
  constructor(readonly detail?: string) {}
}

/** Turns an option's text (a flag, a variable or the default) into its value. */
export interface Parser<T, Unset = undefined> {
  /** What is accepted, completing "… must be": in the error message of a refused text. */
  readonly allowed: string;
  /** The accepted texts when they are a short list, for `--help` and the README. */
  readonly choices?: readonly string[];
  /** The value of an option that is neither set nor has a default. */
  readonly unset: Unset;
  parse(text: string): T | Refused;
  /** The same texts, giving `convert(value)`: a unit or a normal form on top of the check. */
  map<U>(convert: (value: T) => U): Parser<U, Unset>;
}

function parser<T, Unset = undefined>(
  allowed: string,
  parse: (text: string) => T | Refused,
  unset: Unset,
  choices?: readonly string[],
): Parser<T, Unset> {
  return {
    allowed,
    unset,
    parse,
    ...(choices ? { choices } : {}),
    map: (convert) =>
      parser(
        allowed,
        (text) => {
          const value = parse(text);
          return value instanceof Refused ? value : convert(value);
        },
        unset,
        choices,
      ),
  };
}

/** Any text, as given. */
export const text = (): Parser<string> => parser('text', (given) => given, undefined);

/** A file system path, resolved against the working directory at start. */
export const path = (): Parser<string> => parser('a path', (given) => resolve(given), undefined);

/** A text matching `pattern`; `allowed` says in words what it matches. */
export const matching = (pattern: RegExp, allowed: string): Parser<string> =>
  parser(allowed, (given) => (pattern.test(given) ? given : new Refused()), undefined);

/** A decimal integer from `min` to `max`. */
export const integer = (min: number, max: number): Parser<number> =>
  parser(
    `an integer from ${min} to ${max}`,
    (given) => {
      const n = Number(given);
      const inRange = /^\d+$/.test(given.trim()) && Number.isSafeInteger(n) && n >= min && n <= max;
      return inRange ? n : new Refused();
    },
    undefined,
  );

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "500ms", "5s", "5m", "2h", "1d" or a bare number of milliseconds. */
export function parseDuration(given: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(given);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms']!);
}

/** A duration (see parseDuration) of at least `minMs`, in milliseconds. */
export const duration = (minMs = 1): Parser<number> =>
  parser(
    `a duration like 500ms, 10s, 5m, 2h (at least ${minMs} ms)`,
    (given) => {
      const ms = parseDuration(given);
      return ms === undefined || ms < minMs ? new Refused() : ms;
    },
    undefined,
  );

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];

/** true/false, also 1/0, yes/no, on/off (a bare `--flag` is "true"). */
export const boolean = (): Parser<boolean> =>
  parser(
    'true or false',
    (given) => {
      const word = given.trim().toLowerCase();
      if (TRUE_WORDS.includes(word)) return true;
      if (FALSE_WORDS.includes(word)) return false;
      return new Refused();
    },
    undefined,
    ['true', 'false'],
  );

/** One of `choices`, exactly. */
export const oneOf = <const Choice extends string>(choices: readonly Choice[]): Parser<Choice> =>
  parser(
    `one of ${choices.join(', ')}`,
    (given) => (choices.includes(given as Choice) ? (given as Choice) : new Refused()),
    undefined,
    choices,
  );

/** An absolute URL with one of `protocols` (`'https:'`, with the colon), as given. */
export const url = (protocols: readonly string[]): Parser<string> =>
  parser(
    `a URL starting ${protocols.map((protocol) => `${protocol}//`).join(' or ')}`,
    (given) => (URL.canParse(given) && protocols.includes(new URL(given).protocol) ? given : new Refused()),
    undefined,
  );

/**
 * Comma-separated items, each read by `item`; blanks around items and empty items are skipped. Unset, a
 * list is empty.
 */
export const list = <T>(item: Parser<T, unknown>, allowed: string, minItems = 0): Parser<T[], T[]> =>
  parser(
    allowed,
    (given) => {
      const items = given
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
        .map((part) => item.parse(part));
      if (items.length < minItems || items.some((value) => value instanceof Refused)) return new Refused();
      return items as T[];
    },
    [],
  );

/** A file's text, or why it cannot be read (the OS's words). */
function readText(path: string): string | Refused {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return new Refused((error as Error).message);
  }
}

/** The path of a PEM file holding certificates; the value is the file's text. */
export const pemCertificates = (): Parser<string> =>
  parser(
    'a readable file of PEM certificates',
    (given) => {
      const pem = readText(given);
      if (pem instanceof Refused) return pem;
      return pem.includes('-----BEGIN CERTIFICATE-----') ? pem : new Refused('it holds no PEM certificate');
    },
    undefined,
  );

/** The path of a PEM file holding a private key (unencrypted); the value is the file's text. */
export const pemPrivateKey = (): Parser<string> =>
  parser(
    'a readable file holding a PEM private key',
    (given) => {
      const pem = readText(given);
      if (pem instanceof Refused) return pem;
      if (pem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----'))
        return new Refused('the key is encrypted; the server takes no passphrase');
      return /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)
        ? pem
        : new Refused('it holds no PEM private key');
    },
    undefined,
  );
