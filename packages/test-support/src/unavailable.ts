// What stands in for a suite that needs something this machine lacks (PostgreSQL, WordPress, Python with
// the service's SDK): skipped tests named with the reason, announced loudly — or, under CI=true (or when
// the caller requires it), a failing test with the same message: CI's machines provide all of them, so
// a missing one there is a broken setup, not a reason to pass. `npm test` counts the skips and names
// their reasons in its final line (it looks for "SKIPPED:" in the titles).
import { it } from 'vitest';

export interface UnavailableOptions {
  /** Fail even without CI=true (the caller asked for this suite explicitly). */
  required?: boolean;
  /**
   * Registers the tests that would have run, as skipped, so each one is counted (e.g.
   * `(title) => describe.skip(title, suite)`); `title` carries the reason. Default: one skipped test.
   */
  registerSkipped?: (title: string) => void;
}

/** The title of a skipped stand-in: "*** SKIPPED: <suite> — <reason> ***". */
export function skippedTitle(suite: string, reason: string): string {
  return `*** SKIPPED: ${suite} — ${reason} ***`;
}

export function unavailable(suite: string, reason: string, options: UnavailableOptions = {}): void {
  const message = skippedTitle(suite, reason);
  if (process.env.CI === 'true' || options.required) {
    it(`${suite}: cannot run here`, () => {
      throw new Error(message);
    });
    return;
  }
  console.warn(`\n${message}\n`);
  if (options.registerSkipped) options.registerSkipped(message);
  else it.skip(message, () => {});
}
