// What the SDK judges (pydomo.test.ts, domo-sdk.test.ts) share: shape checks on what an SDK returned, and
// reading a service's log (the server's, written by another process; the mock's, written after the
// answer) to count what the SDK sent.
import { isObject, type JsonObject } from '@platform-api/validator';
import { expect, vi } from 'vitest';
import type { LoggedRequest } from './logged-server.js';

export const asObject = (value: unknown): JsonObject => {
  expect(isObject(value), `expected an object, got ${JSON.stringify(value)}`).toBe(true);
  return value as JsonObject;
};
export const asArray = (value: unknown): unknown[] => {
  expect(Array.isArray(value), `expected an array, got ${JSON.stringify(value)}`).toBe(true);
  return value as unknown[];
};
export const idsOf = (list: unknown): unknown[] => asArray(list).map((item) => asObject(item).id);

/** A step an SDK walk reported (python-sdk.ts, node-sdk.ts): its name, whether it succeeded, its value. */
interface ReportedStep {
  name: string;
  ok: boolean;
  value?: unknown;
}

/** The step of that name; a walk that did not report it fails the test. */
export function stepOf<Step extends ReportedStep>(run: { steps: Step[] }, name: string): Step {
  const step = run.steps.find((candidate) => candidate.name === name);
  expect(step, `the walk did not report the step ${name}`).toBeDefined();
  return step as Step;
}

/** The step succeeded as the SDK sees it; its value, with `describe(step)` in any failure message. */
export function okValue<Step extends ReportedStep>(
  run: { steps: Step[] },
  name: string,
  describe: (step: Step) => string,
): unknown {
  const step = stepOf(run, name);
  expect(step.ok, describe(step)).toBe(true);
  return step.value;
}

/**
 * Waits (at most a minute) until a service's log shows at least `count` requests: the server logs in
 * another process, the mock after it has answered.
 */
export async function logCaughtUp(logged: () => number, count: number): Promise<void> {
  await vi
    .waitFor(() => expect(logged()).toBeGreaterThanOrEqual(count), { timeout: 60_000, interval: 50 })
    .catch(() => {
      // The caller's assertions on the log say what is missing.
    });
}

/** What a service logged of a walk: every request but the harness's readiness probe. */
export const walkLogged = (requests: LoggedRequest[]): LoggedRequest[] =>
  requests.filter((request) => request.url !== '/readyz');

/**
 * The service's own log shows exactly one token request, answered 200, and exactly the `sent` requests
 * the SDK (`client`) made: the count is of every request it sent.
 */
export function expectOneTokenRequest(requests: LoggedRequest[], sent: number, client: string): void {
  const logged = walkLogged(requests);
  const tokenRequests = logged.filter(
    (request) => new URL(request.url, 'http://x').pathname === '/oauth/token',
  );
  expect(
    tokenRequests.length,
    `${tokenRequests.length} token requests among ${logged.length} logged (${client} made ${sent}):\n` +
      tokenRequests.map((r) => `  ${r.method} ${r.url} → ${r.status}`).join('\n'),
  ).toBe(1);
  expect(tokenRequests[0]?.status).toBe(200);
  expect(logged.length).toBe(sent);
}
