// What the CLI knows of an API it can test: its own flags, which of them a run needs, and how it turns
// them into a run (the validator of its bundle, its clients, phases of its own). The CLI holds the flags
// every API shares and nothing API-specific; each API is one Target (./index.ts lists them).
import type { CheckName } from '../run/checks.js';
import type { RunOptions } from '../run/runner.js';
import type { Throttle } from '../throttle.js';

/** Wrong or missing arguments: the CLI prints the message and the usage, and exits 2. */
export class UsageError extends Error {}

/** Thrown when a target cannot be used at all; its message is the cause a user must fix. */
export class TargetUnusable extends Error {}

/** A flag as `node:util` parseArgs declares it. */
export type FlagOption =
  | { type: 'string'; default?: string }
  | { type: 'boolean'; default?: boolean; short?: string };

/** The parsed flags of one command line. */
export type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

export interface TargetContext {
  /** `--base-url`, without a trailing slash. */
  baseUrl: string;
  /** The run's throttle, for every client of the target (its rate limit counts them all). */
  throttle: Throttle;
  /** The phases selected (undefined: all). */
  phases: RunOptions['phases'];
  /** A line of progress for the user. */
  log: (line: string) => void;
}

/** What a target adds to a run. */
export type TargetRun = Pick<
  RunOptions,
  'validator' | 'client' | 'otherTenant' | 'include' | 'phaseRunners'
> & {
  /** Checks that do not apply to this API as its servers are, whatever the command line selects. */
  inapplicableChecks?: ReadonlySet<CheckName>;
};

export interface Target {
  /** The API's name on the command line (`contract-tests platform`) and in reports. */
  readonly api: string;
  /** Its flags beyond the shared ones. */
  readonly options: Readonly<Record<string, FlagOption>>;
  /** Its lines of the usage text. */
  readonly usage: string;
  /** The flags a run of this API cannot do without. */
  readonly required: readonly string[];
  /** Builds the run; TargetUnusable when the target cannot be used (no token, nothing listening). */
  connect(flags: FlagValues, context: TargetContext): Promise<TargetRun>;
}

/** A string flag's value (parseArgs has checked its type). */
export function stringFlag(flags: FlagValues, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}
