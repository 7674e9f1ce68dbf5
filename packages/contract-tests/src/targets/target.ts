// What the CLI knows of an API it can test: its own options, which of them a run needs, and how it turns
// them into a run (the validator of its bundle, its clients, phases of its own). The CLI holds the options
// every API shares and nothing API-specific; each API is one Target (./index.ts lists them).
import type { ConfigOf, Declaration, Option } from '@platform-api/cli-options';
import type { CheckName } from '../run/checks.js';
import type { RunOptions } from '../run/runner.js';
import type { Throttle } from '../throttle.js';

/** Thrown when a target cannot be used at all; its message is the cause a user must fix. */
export class TargetUnusable extends Error {}

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
  'validator' | 'client' | 'otherTenant' | 'include' | 'phaseRunners' | 'scopes'
> & {
  /** Checks that do not apply to this API as its servers are, whatever the command line selects. */
  inapplicableChecks?: ReadonlySet<CheckName>;
};

export interface Target<Options extends Declaration = Declaration> {
  /** The API's name on the command line (`contract-tests platform`) and in reports. */
  readonly api: string;
  /** Its options beyond the shared ones, each declared once (flag, parser, default, help). */
  readonly options: Options;
  /** Its synopsis line of the usage text. */
  readonly synopsis: string;
  /** The options a run of this API cannot do without. */
  readonly required: readonly Option<unknown>[];
  /** Builds the run; TargetUnusable when the target cannot be used (no token, nothing listening). */
  connect(options: ConfigOf<Options>, context: TargetContext): Promise<TargetRun>;
}
