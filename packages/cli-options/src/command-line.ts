import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type Declaration, type Flags, optionsOf } from './options.js';

/** Flags a command reads itself beside its declared options (`--json`, `--help`), as parseArgs declares them. */
export type CommandFlags = NonNullable<ParseArgsConfig['options']>;

/** `--help` and `-h`, which every command takes: asked anywhere before `--`, the usage is the answer. */
const HELP: CommandFlags = { help: { type: 'boolean', short: 'h' } };

/**
 * Splits a command line with node:util's parseArgs: `--name value`, `--name=value`, a switch alone
 * (`--stateless`), a repeatable flag once per value. A flag that takes a value takes the next argument
 * whatever it is, so a secret starting with `-` needs no `=`. Not strict, so that every unknown flag is
 * reported with the other problems (readOptions), not just the first one. `help` says whether `--help`
 * (`-h`) was given; it is not among the flags.
 */
export function parseCommandLine(
  argv: readonly string[],
  declaration: Declaration,
  commandFlags: CommandFlags = {},
): { flags: Flags; positionals: string[]; help: boolean } {
  const options: CommandFlags = { ...commandFlags, ...HELP };
  for (const { spec } of optionsOf(declaration)) {
    const { form } = spec.parser;
    options[spec.flag] =
      form === 'switch' ? { type: 'boolean' } : { type: 'string', multiple: form === 'repeated' };
  }
  const { values, positionals } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
  });
  const { help, ...given } = values;
  const flags: Flags = new Map();
  for (const [name, value] of Object.entries(given)) {
    if (value === true || typeof value === 'string') flags.set(name, value);
    else if (Array.isArray(value)) flags.set(name, value.map(String));
  }
  return { flags, positionals, help: help === true };
}

/**
 * The subcommand a command line starts with (`mock platform …`, `contract-tests site …`) when it is one of
 * `commands`, and the arguments after it; otherwise no command and every argument.
 */
export function subcommandOf<const Command extends string>(
  argv: readonly string[],
  commands: readonly Command[],
): { command: Command | undefined; args: string[] } {
  const [first, ...rest] = argv;
  return commands.includes(first as Command)
    ? { command: first as Command, args: rest }
    : { command: undefined, args: [...argv] };
}
