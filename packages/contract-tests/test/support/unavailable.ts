// What stands in for a suite that needs something this machine lacks (PostgreSQL, WordPress, Python with
// the service's SDK): a skipped test named with the reason, announced loudly — or, under CI=true (or when
// the caller requires it), a failing test with the same message: CI's machines provide all of them, so
// a missing one there is a broken setup, not a reason to pass.
import { it } from 'vitest';

export function unavailable(suite: string, reason: string, options: { required?: boolean } = {}): void {
  const message = `*** SKIPPED: ${suite} — ${reason} ***`;
  if (process.env.CI === 'true' || options.required) {
    it(`${suite}: cannot run here`, () => {
      throw new Error(message);
    });
    return;
  }
  console.warn(`\n${message}\n`);
  it.skip(message, () => {});
}
