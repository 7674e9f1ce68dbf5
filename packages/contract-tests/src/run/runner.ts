// One contract run: the selected phases in order against one target, every answer judged by the
// selected checks, and one report at the end. A failure that makes the rest meaningless (the server
// does not answer) stops the run and is reported first.
import type { Operation, SpecValidator } from '@platform-api/validator';
import type { ContractClient } from '../client.js';
import { TargetThrottled } from '../throttle.js';
import { CHECK_NAMES, type CheckName, PHASES, type PhaseName } from './checks.js';
import { coveragePhase } from './phases/coverage.js';
import { examplesPhase } from './phases/examples.js';
import { fuzzPhase } from './phases/fuzz.js';
import { statefulPhase } from './phases/stateful.js';
import { type TransportOptions, transportPhase } from './phases/transport.js';
import { DEFAULT_MAX_EXAMPLES, type RunReport, type RunScopes, Session } from './session.js';

export type PhaseRunner = (session: Session) => Promise<void>;

export interface RunOptions {
  /** Which API (bundle) the run checks, for the reports: `platform`, `site`. */
  api: string;
  /** The target's name in reports (its base URL, or "reference server on SQLite"). */
  target: string;
  validator: SpecValidator;
  client: ContractClient;
  otherTenant?: ContractClient;
  include?: (operation: Operation) => boolean;
  phases?: readonly PhaseName[];
  checks?: readonly CheckName[];
  /** A check left out on one operation, as `check:operationId`: for a rule its spec cannot express. */
  exemptions?: readonly string[];
  seed?: number;
  /**
   * Generated requests per operation and direction in the fuzz phase (default 35); the stateful phase's
   * chains per create grow with it (3 at the default).
   */
  maxExamples?: number;
  runId?: string;
  /** Whether generated strings may contain U+0000 (default true, as Schemathesis). */
  allowNul?: boolean;
  /** The max_response_time budget: an answer slower than this fails it (default: not checked). */
  maxResponseTimeMs?: number;
  transport?: TransportOptions;
  /** Phases only some APIs have (the platform's webhooks), or a target's own version of one. */
  phaseRunners?: Partial<Record<PhaseName, PhaseRunner>>;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** The run's OAuth scopes and tokens with fewer of them (scope_enforcement; default: not checked). */
  scopes?: RunScopes;
}

/** A random seed that fits fast-check's (32-bit) seeds. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

export async function runContractTests(options: RunOptions): Promise<RunReport> {
  const startedAt = new Date();
  const session = new Session({
    api: options.api,
    validator: options.validator,
    client: options.client,
    otherTenant: options.otherTenant,
    include: options.include,
    checks: new Set(options.checks ?? CHECK_NAMES),
    exemptions: new Set(options.exemptions),
    seed: options.seed ?? randomSeed(),
    maxExamples: options.maxExamples ?? DEFAULT_MAX_EXAMPLES,
    runId: options.runId ?? Date.now().toString(36),
    allowNul: options.allowNul ?? true,
    maxResponseTimeMs: options.maxResponseTimeMs,
    log: options.log,
    scopes: options.scopes,
  });
  const runners: Record<PhaseName, PhaseRunner | undefined> = {
    examples: examplesPhase,
    coverage: coveragePhase,
    fuzz: fuzzPhase,
    stateful: statefulPhase,
    transport: (s) => transportPhase(s, options.transport),
    webhooks: undefined,
    ...options.phaseRunners,
  };
  const phases: RunReport['phases'] = [];
  let fatal: string | undefined;
  for (const phase of PHASES.filter((name) => (options.phases ?? PHASES).includes(name))) {
    const runner = runners[phase];
    if (!runner) continue;
    session.phase = phase;
    const before = session.requests;
    const started = performance.now();
    options.log?.(`${phase}…`);
    try {
      await runner(session);
    } catch (error) {
      const unreachable = error instanceof TypeError && error.message === 'fetch failed';
      fatal = unreachable
        ? `${options.target} does not answer (${describeError(error)})`
        : error instanceof TargetThrottled
          ? error.message
          : `${phase} phase stopped: ${describeError(error)}`;
    }
    phases.push({
      name: phase,
      requests: session.requests - before,
      durationMs: Math.round(performance.now() - started),
    });
    options.log?.(`${phase}: ${session.requests - before} requests`);
    if (fatal) break;
  }
  return session.report({
    target: options.target,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    phases,
    ...(fatal ? { fatal } : {}),
  });
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
