// One scenario of the site suite: a named sequence of calls and assertions that becomes one site_scenario
// result of the run (passed; failed with its message and the request that showed it; or skipped with the
// reason it does not apply to the target). Scenarios of a group run in order and share what they create.
import { AssertionError } from 'node:assert';
import { inspect } from 'node:util';
import type { Operation } from '@platform-api/validator';
import type { SentRequest } from '../../client.js';
import { TargetThrottled } from '../../throttle.js';
import { type Exchange, NO_ROLES, type SiteHarness } from './harness.js';

export interface Scenario {
  name: string;
  /** Why the scenario does not apply to this target, or undefined when it does. */
  notApplicable?: () => string | undefined;
  run(): Promise<void>;
}

export interface ScenarioCounts {
  run: number;
  passed: number;
  failed: number;
  skipped: number;
}

export function emptyCounts(): ScenarioCounts {
  return { run: 0, passed: 0, failed: 0, skipped: 0 };
}

/**
 * Runs scenarios in order, each one result named `<suite> › <scenario>`. Once `blockedBy` (a failed setup)
 * returns a reason, the rest are skipped with it. A throttled run is stopped (the runner reports it).
 */
export async function runScenarios(
  harness: SiteHarness,
  suite: string,
  scenarios: readonly Scenario[],
  counts: ScenarioCounts,
  blockedBy: () => string | undefined = () => undefined,
): Promise<void> {
  for (const scenario of scenarios) {
    const name = `${suite} › ${scenario.name}`;
    const reason = blockedBy() ?? scenario.notApplicable?.();
    if (reason !== undefined) {
      harness.session.skip('site_scenario', name, reason);
      counts.skipped += 1;
      continue;
    }
    const failure = await attempt(harness, scenario.run);
    counts.run += 1;
    if (failure === undefined) {
      harness.session.pass('site_scenario', { operationId: name });
      counts.passed += 1;
    } else {
      recordFailure(harness, name, failure);
      counts.failed += 1;
    }
  }
}

/** Runs one step, returning why it failed (undefined when it held). A throttled run is not a failure. */
export async function attempt(harness: SiteHarness, step: () => Promise<void>): Promise<unknown> {
  harness.lastExchange = undefined;
  try {
    await step();
    return undefined;
  } catch (error) {
    if (error instanceof TargetThrottled) throw error;
    return error;
  }
}

/** Records a failed scenario with the last request it sent (or the target's URL when it sent none). */
export function recordFailure(harness: SiteHarness, name: string, error: unknown): void {
  const exchange: Exchange = harness.lastExchange ?? {
    request: { method: 'GET', url: harness.target.baseUrl, headers: {} } satisfies SentRequest,
  };
  harness.session.fail('site_scenario', { operationId: name }, describeFailure(error), exchange);
}

/** An error as a line or a few: an assertion with its own message also shows what it compared. */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let text = error.message;
  if (error instanceof AssertionError && !error.generatedMessage) {
    const show = (value: unknown) => inspect(value, { depth: 4, breakLength: Infinity }).slice(0, 600);
    text += `\n   expected: ${show(error.expected)}\n   actual:   ${show(error.actual)}`;
  }
  return text.slice(0, 2000);
}

/**
 * The two scenarios of who is refused under `prefix` (see SiteHarness.refusesUnauthorised); a user without
 * the rights needs WordPress's roles.
 */
export function refusalScenarios(
  h: SiteHarness,
  prefix: string,
  pathFor: (operation: Operation) => Record<string, string | number>,
): Scenario[] {
  return [
    {
      name: 'refuses anonymous callers (401)',
      run: () => h.refusesUnauthorised('anonymous', prefix, pathFor),
    },
    {
      name: 'refuses users without the rights (403)',
      notApplicable: h.needsWordPress(NO_ROLES),
      run: () => h.refusesUnauthorised('subscriber', prefix, pathFor),
    },
  ];
}
