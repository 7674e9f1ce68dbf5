// The throttle on a scripted target and a manual clock: how long it waits and when it gives up are exact.
import { describe, expect, it } from 'vitest';
import type { Answer } from '../src/client.js';
import { TargetThrottled, Throttle } from '../src/throttle.js';

const answer = (status: number, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: new Headers(headers),
  text: '',
  json: undefined,
});

/** A throttle whose clock moves only by its own waits; `waits` lists them. */
function manualThrottle(budgetMs?: number, minIntervalMs?: number) {
  let now = Date.UTC(2026, 0, 1);
  const waits: number[] = [];
  const throttle = new Throttle({
    ...(budgetMs === undefined ? {} : { budgetMs }),
    ...(minIntervalMs === undefined ? {} : { minIntervalMs }),
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
  });
  return { throttle, waits, now: () => now };
}

/** A target that gives these answers in turn. */
const scripted = (...answers: Answer[]) => {
  let sent = 0;
  const send = async () => answers[Math.min(sent++, answers.length - 1)] as Answer;
  return { send, sent: () => sent };
};

describe('Throttle', () => {
  it('sends a 429 again after its Retry-After, and counts it', async () => {
    const { throttle, waits } = manualThrottle();
    const target = scripted(answer(429, { 'retry-after': '20' }), answer(200));
    expect((await throttle.run(target.send)).status).toBe(200);
    expect(target.sent()).toBe(2);
    expect(waits).toEqual([20_000]);
    expect(throttle).toMatchObject({ throttled: 1, waitedMs: 20_000 });
  });

  it('reads Retry-After as an HTTP date, else RateLimit-Reset, else waits a second', async () => {
    const { throttle, waits, now } = manualThrottle();
    const at = new Date(now() + 7_000).toUTCString();
    const target = scripted(
      answer(429, { 'retry-after': at }),
      answer(429, { 'ratelimit-reset': '3' }),
      answer(429),
      answer(204),
    );
    expect((await throttle.run(target.send)).status).toBe(204);
    expect(waits).toEqual([7_000, 3_000, 1_000]);
  });

  it('after RateLimit-Remaining: 0, waits for the window to reset before the next request', async () => {
    const { throttle, waits } = manualThrottle();
    const spent = scripted(answer(200, { 'ratelimit-remaining': '0', 'ratelimit-reset': '42' }));
    await throttle.run(spent.send);
    expect(waits).toEqual([]);
    const next = scripted(answer(200, { 'ratelimit-remaining': '99', 'ratelimit-reset': '60' }));
    await throttle.run(next.send);
    expect(waits).toEqual([42_000]);
    expect(throttle).toMatchObject({ throttled: 0, waitedMs: 42_000 });
  });

  it('stops the run, naming the cause, when the waits would pass the budget', async () => {
    const { throttle, waits } = manualThrottle(60_000);
    const target = scripted(answer(429, { 'retry-after': '30' }));
    const error = await throttle.run(target.send).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TargetThrottled);
    expect((error as Error).message).toMatch(/after 60 s of waiting, a 429 asks for 30 s more/);
    expect(waits).toEqual([30_000, 30_000]);
  });

  it('gives up on a request the target answers 429 every time, even without waits', async () => {
    const { throttle } = manualThrottle();
    const target = scripted(answer(429, { 'retry-after': '0' }));
    await expect(throttle.run(target.send)).rejects.toThrow(/answered 429 to the same request 21 times/);
    expect(target.sent()).toBe(21);
  });

  it("keeps to the pace of --rate-limit, without counting it as the target's throttling", async () => {
    // 4/s: a request every 250 ms.
    const { throttle, waits } = manualThrottle(undefined, 250);
    const target = scripted(answer(200));
    for (let sent = 0; sent < 3; sent++) await throttle.run(target.send);
    expect(target.sent()).toBe(3);
    expect(waits).toEqual([250, 250]);
    expect(throttle).toMatchObject({ throttled: 0, waitedMs: 0 });
  });
});
