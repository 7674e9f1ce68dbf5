import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** A text an option does not accept; `detail` says why where "must be …" alone would not (a read error). */
export class Refused {
  constructor(readonly detail?: string) {}
}

/**
 * How an option is written on a command line: with a value (`--port 80`, `--port=80`), as a switch that takes
 * none (`--stateless`), or once per value (`--header A --header B`).
 */
export type FlagForm = 'value' | 'switch' | 'repeated';

/** Turns an option's text (a flag, a variable or the default) into its value. */
export interface Parser<T, Unset = undefined> {
  /** What is accepted, completing "… must be": in the error message of a refused text. */
  readonly allowed: string;
  /** The accepted texts when they are a short list, for `--help` and the README. */
  readonly choices?: readonly string[];
  /** The value of an option that is neither set nor has a default. */
  readonly unset: Unset;
  readonly form: FlagForm;
  parse(text: string): T | Refused;
  /** The same texts, giving `convert(value)`: a unit or a normal form on top of the check. */
  map<U>(convert: (value: T) => U): Parser<U, Unset>;
}

interface ParserParts<T, Unset> {
  allowed: string;
  parse: (text: string) => T | Refused;
  unset: Unset;
  choices?: readonly string[];
  form?: FlagForm;
}

function parser<T, Unset = undefined>(parts: ParserParts<T, Unset>): Parser<T, Unset> {
  const { allowed, parse, unset, choices, form = 'value' } = parts;
  return {
    allowed,
    unset,
    form,
    parse,
    ...(choices ? { choices } : {}),
    map: (convert) =>
      parser({
        ...parts,
        parse: (text) => {
          const value = parse(text);
          return value instanceof Refused ? value : convert(value);
        },
      }),
  };
}

/** Any text, as given. */
export const text = (): Parser<string> =>
  parser({ allowed: 'text', parse: (given) => given, unset: undefined });

/** A file system path, resolved against the working directory at start. */
export const path = (): Parser<string> =>
  parser({ allowed: 'a path', parse: (given) => resolve(given), unset: undefined });

/** A text matching `pattern`; `allowed` says in words what it matches. */
export const matching = (pattern: RegExp, allowed: string): Parser<string> =>
  parser({ allowed, parse: (given) => (pattern.test(given) ? given : new Refused()), unset: undefined });

/** A decimal integer from `min` to `max`. */
export const integer = (min: number, max: number): Parser<number> =>
  parser({
    allowed: `an integer from ${min} to ${max}`,
    parse: (given) => {
      const n = Number(given);
      const inRange = /^\d+$/.test(given.trim()) && Number.isSafeInteger(n) && n >= min && n <= max;
      return inRange ? n : new Refused();
    },
    unset: undefined,
  });

/** A decimal number of seconds (`1.5`, `0`), in milliseconds; `aboveZero` refuses 0. */
export const seconds = ({ aboveZero = false } = {}): Parser<number> =>
  parser({
    allowed: aboveZero ? 'a number of seconds above 0' : 'a number of seconds',
    parse: (given) => {
      if (!/^\s*(\d+\.?\d*|\.\d+)\s*$/.test(given)) return new Refused();
      const ms = Number(given) * 1000;
      return aboveZero && ms === 0 ? new Refused() : ms;
    },
    unset: undefined,
  });

const MILLISECONDS_PER_UNIT: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Parses "500ms", "5s", "5m", "2h", "1d" or a bare number of milliseconds. */
export function parseDuration(given: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(given);
  const unit = MILLISECONDS_PER_UNIT[match?.[2] ?? 'ms'];
  if (!match || unit === undefined) return undefined;
  return Math.round(Number(match[1]) * unit);
}

/** A duration (see parseDuration) of at least `minMs`, in milliseconds. */
export const duration = (minMs = 1): Parser<number> =>
  parser({
    allowed: `a duration like 500ms, 10s, 5m, 2h (at least ${minMs} ms)`,
    parse: (given) => {
      const ms = parseDuration(given);
      return ms === undefined || ms < minMs ? new Refused() : ms;
    },
    unset: undefined,
  });

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];

function truthOf(given: string): boolean | Refused {
  const word = given.trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  return new Refused();
}

/**
 * true/false, also 1/0, yes/no, on/off, written as a value (`--delivery false`); a bare `--flag` at the end of
 * the command line is "true". For an option that never takes a value, see `switchFlag`.
 */
export const boolean = (): Parser<boolean> =>
  parser({ allowed: 'true or false', parse: truthOf, unset: undefined, choices: ['true', 'false'] });

/**
 * A switch: `--stateless` alone is true, and takes no value, so that the next argument stays a positional
 * (`--stateless platform`). Not given, it is false; its environment variable reads true/false, 1/0, yes/no,
 * on/off.
 */
export const switchFlag = (): Parser<boolean, false> =>
  parser({ allowed: 'true or false', parse: truthOf, unset: false, form: 'switch' });

/** One of `choices`, exactly. */
export const oneOf = <const Choice extends string>(choices: readonly Choice[]): Parser<Choice> =>
  parser({
    allowed: `one of ${choices.join(', ')}`,
    parse: (given) => (choices.includes(given as Choice) ? (given as Choice) : new Refused()),
    unset: undefined,
    choices,
  });

/** An absolute URL with one of `protocols` (`'https:'`, with the colon), as given. */
export const url = (protocols: readonly string[]): Parser<string> =>
  parser({
    allowed: `a URL starting ${protocols.map((protocol) => `${protocol}//`).join(' or ')}`,
    parse: (given) =>
      URL.canParse(given) && protocols.includes(new URL(given).protocol) ? given : new Refused(),
    unset: undefined,
  });

/**
 * Comma-separated items, each read by `item`; blanks around items and empty items are skipped. Unset, a
 * list is empty.
 */
export const list = <T>(item: Parser<T, unknown>, allowed: string, minItems = 0): Parser<T[], T[]> =>
  parser({
    allowed,
    parse: (given) => {
      const items = given
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
        .map((part) => item.parse(part));
      if (items.length < minItems || items.some((value) => value instanceof Refused)) return new Refused();
      return items as T[];
    },
    unset: [],
  });

/**
 * A flag given once per item (`--header 'A: 1' --header 'B: 2'`), each read by `item`, in the order given;
 * its environment variable holds one item. Unset, the list is empty.
 */
export const repeatable = <T>(item: Parser<T, unknown>): Parser<T[], T[]> =>
  parser({
    allowed: item.allowed,
    parse: (given) => {
      const value = item.parse(given);
      return value instanceof Refused ? value : [value];
    },
    unset: [],
    form: 'repeated',
    ...(item.choices ? { choices: item.choices } : {}),
  });

/** A file's text, or why it cannot be read (the OS's words). */
function readText(path: string): string | Refused {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return new Refused((error as Error).message);
  }
}

/** The path of a PEM file; the value is the file's text, unless `whyRefused` finds fault with it. */
const pemFile = (allowed: string, whyRefused: (pem: string) => string | undefined): Parser<string> =>
  parser({
    allowed,
    parse: (given) => {
      const pem = readText(given);
      if (pem instanceof Refused) return pem;
      const why = whyRefused(pem);
      return why === undefined ? pem : new Refused(why);
    },
    unset: undefined,
  });

/** The path of a PEM file holding certificates; the value is the file's text. */
export const pemCertificates = (): Parser<string> =>
  pemFile('a readable file of PEM certificates', (pem) =>
    pem.includes('-----BEGIN CERTIFICATE-----') ? undefined : 'it holds no PEM certificate',
  );

/** The path of a PEM file holding a private key (unencrypted); the value is the file's text. */
export const pemPrivateKey = (): Parser<string> =>
  pemFile('a readable file holding a PEM private key', (pem) => {
    if (pem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----'))
      return 'the key is encrypted; no passphrase is taken';
    return /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem) ? undefined : 'it holds no PEM private key';
  });
