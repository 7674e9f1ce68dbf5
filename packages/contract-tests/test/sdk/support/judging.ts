// What the SDK judges (pydomo.test.ts, domo-sdk.test.ts) share: shape checks on what an SDK returned, the
// spec's success examples (what Prism answers), and reading a service's log from another process.
import { isObject, type JsonObject, joinPointer, type Operation } from '@platform-api/validator';
import { expect, vi } from 'vitest';
import type { SpecValidator } from '../../../src/index.js';

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

/** The examples of an operation's 2xx responses (what Prism answers with). */
export function successExamples(validator: SpecValidator, operation: Operation): unknown[] {
  const values: unknown[] = [];
  const responses = isObject(operation.node.responses) ? operation.node.responses : {};
  for (const [status, raw] of Object.entries(responses)) {
    if (!/^2/.test(status)) continue;
    const response = validator.resolve({
      node: raw,
      pointer: joinPointer(operation.pointer, 'responses', status),
    });
    const content = isObject(response.node.content) ? response.node.content : {};
    for (const [mediaType, media] of Object.entries(content)) {
      if (!isObject(media)) continue;
      if ('example' in media) values.push(media.example);
      for (const [name, example] of Object.entries(isObject(media.examples) ? media.examples : {})) {
        const resolved = validator.resolve({
          node: example,
          pointer: joinPointer(response.pointer, 'content', mediaType, 'examples', name),
        });
        if ('value' in resolved.node) values.push(resolved.node.value);
      }
    }
  }
  return values;
}

/** Waits (at most a minute) until a log read from another process shows at least `count` requests. */
export async function logCaughtUp(logged: () => number, count: number): Promise<void> {
  await vi
    .waitFor(() => expect(logged()).toBeGreaterThanOrEqual(count), { timeout: 60_000, interval: 50 })
    .catch(() => {
      // The caller's assertions on the log say what is missing.
    });
}

/** The requests in Prism's log: [line, method, path]. */
export const prismRequests = (log: string) => [
  ...log.matchAll(/\[HTTP SERVER\] (\w+) (\S+) .*Request received/g),
];
