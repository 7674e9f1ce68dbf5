import { type Parser, Refused } from './parsers.js';

/*
 * A configuration declared as a table: each option once, with its parser, flag, variable, default and
 * help. The configuration's type, its loader, `--help` and the README's table are all read off it.
 */

/** Reads another option's value, for a default computed from it. */
export type ValueOfOption = <V>(option: Option<V>) => V;

/** A default that follows other options (`http://localhost:<port>`), shown to users as `shown`. */
export interface ComputedDefault<T> {
  shown: string;
  from: (value: ValueOfOption) => T;
}

export interface OptionSpec<T, Unset> {
  /** The command-line flag, without `--`. */
  flag: string;
  /** The environment variable; an empty one counts as unset. */
  env: string;
  help: string;
  parser: Parser<T, Unset>;
  /** Written as a user would (parsed by the same rules), or computed; none: the parser's unset value. */
  default?: string | ComputedDefault<T>;
  /** Never repeat the value in a message (a database URL holds a password). */
  secret?: boolean;
}

/** One declared option, whose value in the configuration is a `V`. */
export class Option<V> {
  constructor(readonly spec: OptionSpec<V, V>) {}
}

/** An option with a default always has a value; one without has the parser's unset value when not set. */
export function option<T, Unset>(
  spec: OptionSpec<T, Unset> & { default: string | ComputedDefault<T> },
): Option<T>;
export function option<T, Unset>(spec: OptionSpec<T, Unset>): Option<T | Unset>;
export function option<T, Unset>(spec: OptionSpec<T, Unset>): Option<T | Unset> {
  return new Option<T | Unset>(spec);
}

/** Options, and groups of options that become nested objects of the configuration. */
export interface Declaration {
  readonly [field: string]: Option<unknown> | Declaration;
}

/** The configuration a declaration describes: each option's field holds its value. */
export type ConfigOf<D extends Declaration> = {
  -readonly [K in keyof D]: D[K] extends Option<infer V>
    ? V
    : D[K] extends Declaration
      ? ConfigOf<D[K]>
      : never;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Every option of a declaration, in the order declared (groups in place). */
export function optionsOf(declaration: Declaration): Option<unknown>[] {
  return Object.values(declaration).flatMap((entry) =>
    entry instanceof Option ? [entry] : optionsOf(entry),
  );
}

export type Flags = Map<string, string | true>;
type Env = Record<string, string | undefined>;

/** The text an option was given, and where from; undefined when neither its flag nor its variable is set. */
function givenText(spec: OptionSpec<unknown, unknown>, flags: Flags, env: Env) {
  const fromFlag = flags.get(spec.flag);
  if (fromFlag !== undefined)
    return { text: fromFlag === true ? 'true' : fromFlag, source: `--${spec.flag}` };
  const fromEnv = env[spec.env];
  if (fromEnv !== undefined && fromEnv !== '')
    return { text: fromEnv, source: `${spec.env} (--${spec.flag})` };
  return undefined;
}

/** Rules between options, checked with the options' own. */
export interface OptionRules {
  /** Options given all or none at all (a certificate and its key). */
  together?: readonly (readonly Option<unknown>[])[];
}

/**
 * Reads every option of `declaration` from flags, else environment, else its default. Throws a ConfigError
 * listing every problem (unknown flags, refused values), each naming the flag or variable and what is allowed.
 */
export function readOptions<D extends Declaration>(
  declaration: D,
  flags: Flags,
  env: Env,
  rules: OptionRules = {},
): ConfigOf<D> {
  const problems: string[] = [];
  const known = new Set(optionsOf(declaration).map((o) => o.spec.flag));
  for (const name of flags.keys()) {
    if (!known.has(name)) problems.push(`unknown flag --${name}`);
  }
  for (const group of rules.together ?? []) {
    const missing = group.filter(({ spec }) => givenText(spec, flags, env) === undefined);
    if (missing.length > 0 && missing.length < group.length) {
      const names = group.map(({ spec }) => `--${spec.flag}`).join(' and ');
      const unset = missing.map(({ spec }) => `--${spec.flag} (${spec.env})`).join(', ');
      problems.push(`${names} go together: ${unset} is not set`);
    }
  }

  const read = <V>({ spec }: Option<V>): V => {
    const given = givenText(spec, flags, env);
    if (given === undefined && spec.default === undefined) return spec.parser.unset;
    if (given === undefined && typeof spec.default === 'object') return spec.default.from(optionValue);
    const { text, source } = given ?? {
      text: spec.default as string,
      source: `the default of --${spec.flag}`,
    };
    const parsed = spec.parser.parse(text);
    if (!(parsed instanceof Refused)) return parsed;
    const got = spec.secret ? '' : `, got "${text}"`;
    problems.push(
      `${source} must be ${spec.parser.allowed}${got}${parsed.detail ? ` (${parsed.detail})` : ''}`,
    );
    // A placeholder: with a problem, the configuration is never returned.
    return spec.parser.unset;
  };
  // Each option is read once, also when a computed default asks for it.
  const values = new Map<Option<unknown>, unknown>();
  const optionValue: ValueOfOption = (option) => {
    if (!values.has(option)) values.set(option, read(option));
    return values.get(option) as never;
  };

  const build = (group: Declaration): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(group).map(([field, entry]) => [
        field,
        entry instanceof Option ? optionValue(entry) : build(entry),
      ]),
    );
  const config = build(declaration) as ConfigOf<D>;
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** What an option sets, for `--help` and the README: its help, and its choices when they are few. */
export function meaning({ spec }: Option<unknown>): string {
  return spec.parser.choices ? `${spec.help} (${spec.parser.choices.join('|')})` : spec.help;
}

/** The default as users write it; undefined when there is none. */
export function shownDefault({ spec }: Option<unknown>): string | undefined {
  return typeof spec.default === 'object' ? spec.default.shown : spec.default;
}

/** One line per option: flag, variable, meaning and default. */
export function optionsHelp(declaration: Declaration): string {
  return optionsOf(declaration)
    .map((o) => {
      const shown = shownDefault(o);
      const help = shown === undefined ? meaning(o) : `${meaning(o)} (default ${shown})`;
      return `  --${o.spec.flag.padEnd(24)} ${o.spec.env.padEnd(34)} ${help}`;
    })
    .join('\n');
}
