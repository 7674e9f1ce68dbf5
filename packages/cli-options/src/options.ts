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
  /** The environment variable, if the option has one; an empty one counts as unset. */
  env?: string;
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

/**
 * The flags of a command line by name, as node:util's parseArgs gives them: a text, `true` for a flag given
 * without a value (a switch), or the texts of a repeated flag.
 */
export type Flags = Map<string, string | true | string[]>;
export type Env = Record<string, string | undefined>;

/** The texts an option was given, and where from; undefined when neither its flag nor its variable is set. */
function givenTexts(spec: OptionSpec<unknown, unknown>, flags: Flags, env: Env) {
  const fromFlag = flags.get(spec.flag);
  if (fromFlag !== undefined) {
    const texts = fromFlag === true ? ['true'] : typeof fromFlag === 'string' ? [fromFlag] : fromFlag;
    return { texts, source: `--${spec.flag}` };
  }
  const fromEnv = spec.env === undefined ? undefined : env[spec.env];
  if (fromEnv !== undefined && fromEnv !== '')
    return { texts: [fromEnv], source: `${spec.env} (--${spec.flag})` };
  return undefined;
}

/** Rules between options, checked with the options' own. */
export interface OptionRules {
  /** Options given all or none at all (a certificate and its key). */
  together?: readonly (readonly Option<unknown>[])[];
}

/** How a user names an option where it may come from either place: its flag, and its variable if any. */
const bothNames = ({ flag, env }: OptionSpec<unknown, unknown>) =>
  env === undefined ? `--${flag}` : `--${flag} (${env})`;

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
    const missing = group.filter(({ spec }) => givenTexts(spec, flags, env) === undefined);
    if (missing.length > 0 && missing.length < group.length) {
      const names = group.map(({ spec }) => `--${spec.flag}`).join(' and ');
      const unset = missing.map(({ spec }) => bothNames(spec)).join(', ');
      problems.push(`${names} go together: ${unset} is not set`);
    }
  }

  const parse = <V>(spec: OptionSpec<V, V>, text: string, source: string): V => {
    const parsed = spec.parser.parse(text);
    if (!(parsed instanceof Refused)) return parsed;
    const got = spec.secret ? '' : `, got "${text}"`;
    problems.push(
      `${source} must be ${spec.parser.allowed}${got}${parsed.detail ? ` (${parsed.detail})` : ''}`,
    );
    // A placeholder: with a problem, the configuration is never returned.
    return spec.parser.unset;
  };
  const read = <V>({ spec }: Option<V>): V => {
    const given = givenTexts(spec, flags, env);
    if (given === undefined) {
      if (spec.default === undefined) return spec.parser.unset;
      if (typeof spec.default === 'object') return spec.default.from(optionValue);
      return parse(spec, spec.default, `the default of --${spec.flag}`);
    }
    // A flag that takes a value, given none (`--to` last): parseArgs reads it as a switch. Say that, not
    // `got "true"`, unless "true" is a value it takes (a boolean written as a bare flag).
    if (flags.get(spec.flag) === true && spec.parser.parse('true') instanceof Refused) {
      problems.push(`--${spec.flag} needs a value: ${spec.parser.allowed}`);
      return spec.parser.unset;
    }
    const values = given.texts.map((text) => parse(spec, text, given.source));
    // A repeated flag's values are lists of one item each; any other flag given twice: the last one wins.
    if (spec.parser.form === 'repeated') return (values as unknown[][]).flat() as V;
    return values.at(-1) as V;
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

/**
 * What an option sets, for `--help` and the README: its help, its choices when they are few, and whether the
 * flag may be given more than once.
 */
export function meaning({ spec }: Option<unknown>): string {
  const choices = spec.parser.choices ? ` (${spec.parser.choices.join('|')})` : '';
  const repeatable = spec.parser.form === 'repeated' ? ' (repeatable)' : '';
  return `${spec.help}${choices}${repeatable}`;
}

/** The default as users write it; undefined when there is none. */
export function shownDefault({ spec }: Option<unknown>): string | undefined {
  return typeof spec.default === 'object' ? spec.default.shown : spec.default;
}

/**
 * One line per option: flag, variable (a column only when some option has one), meaning and default. The
 * columns are at least as wide as the server's help has always been, wider when a name needs it.
 */
export function optionsHelp(declaration: Declaration): string {
  const options = optionsOf(declaration);
  const flags = options.map((o) => `--${o.spec.flag}`);
  const flagWidth = Math.max(26, ...flags.map((flag) => flag.length));
  const envs = options.map((o) => o.spec.env ?? '');
  const envWidth = envs.some(Boolean) ? Math.max(34, ...envs.map((env) => env.length)) : -1;
  return options
    .map((o, index) => {
      const shown = shownDefault(o);
      const help = shown === undefined ? meaning(o) : `${meaning(o)} (default ${shown})`;
      const env = envWidth < 0 ? '' : `${(envs[index] ?? '').padEnd(envWidth)} `;
      return `  ${(flags[index] ?? '').padEnd(flagWidth)} ${env}${help}`;
    })
    .join('\n');
}
