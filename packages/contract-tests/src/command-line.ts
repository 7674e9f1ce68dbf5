// What the commands (`contract-tests platform|site`, `replay`) share: where they write, and how a command
// line becomes the options a command declares (packages/cli-options: each option declared once).
import {
  type CommandFlags,
  ConfigError,
  type ConfigOf,
  type Declaration,
  parseCommandLine,
  readOptions,
} from '@platform-api/cli-options';

/** Where a command writes: its output, and its usage and problems. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** Wrong or missing arguments: the command prints the message and its usage, and exits 2. */
export class UsageError extends Error {}

export interface CommandLine<D extends Declaration> {
  /** Whether `--help` or `-h` was given: the usage is all the command prints. */
  help: boolean;
  /** The flags the command line names, by flag name (what it gave, whatever its value). */
  given: ReadonlySet<string>;
  positionals: string[];
  /** Reads the declared options (flags, else defaults); every problem at once as a UsageError. */
  read(): ConfigOf<D>;
}

/** Splits a command line by `declaration` (and `commandFlags`, which the command reads itself). */
export function commandLine<D extends Declaration>(
  argv: readonly string[],
  declaration: D,
  commandFlags: CommandFlags = {},
): CommandLine<D> {
  const { flags, positionals, help } = parseCommandLine(argv, declaration, commandFlags);
  const given = new Set(flags.keys());
  for (const name of Object.keys(commandFlags)) flags.delete(name);
  return {
    help,
    given,
    positionals,
    read: () => {
      try {
        // Options come from the command line alone: the suite reads no environment variable.
        return readOptions(declaration, flags, {});
      } catch (error) {
        if (error instanceof ConfigError) throw new UsageError(error.problems.join('\n'));
        throw error;
      }
    },
  };
}
