/** The one source of "now" for the server, injectable so tests can move time (token and callback expiry). */
export interface Clock {
  now(): number /* epoch ms */;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can set and advance. */
export function manualClock(
  start = Date.now(),
): Clock & { set(ms: number): void; advance(ms: number): void } {
  let current = start;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}
