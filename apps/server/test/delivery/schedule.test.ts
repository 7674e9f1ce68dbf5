import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  nextRetryDelayMs,
  parseRetryAfterMs,
  retryAfterCapMs,
  retryDelayMs,
} from '../../src/delivery/schedule.js';

describe('retry schedule', () => {
  const schedule = loadConfig(new Map(), {}).delivery.retryScheduleMs;

  it('defaults to 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(schedule).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  });

  it('uses each step as the ceiling of a full-jitter delay', () => {
    expect(retryDelayMs(1, schedule, () => 0)).toBe(0);
    expect(retryDelayMs(1, schedule, () => 0.5)).toBe(2_500);
    expect(retryDelayMs(2, schedule, () => 0.999_999)).toBe(299_999);
    expect(retryDelayMs(7, schedule, () => 0.5)).toBe(18_000_000);
    for (let i = 0; i < 100; i++) {
      const delay = retryDelayMs(3, schedule) as number;
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(1_800_000);
    }
  });

  it('ends after the last step', () => {
    expect(retryDelayMs(8, schedule, () => 0.5)).toBeUndefined();
    expect(retryDelayMs(1, [], () => 0.5)).toBeUndefined();
  });

  it('caps Retry-After at the longest step', () => {
    expect(retryAfterCapMs(schedule)).toBe(36_000_000);
    expect(retryAfterCapMs([])).toBe(0);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date, never negative', () => {
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('-5', now)).toBeUndefined();
  });
});

describe('the retry decision', () => {
  const schedule = [5_000, 300_000, 1_800_000];
  const now = Date.parse('2026-01-01T00:00:00Z');
  const half = () => 0.5;

  it('retries after the jittered step of the schedule', () => {
    expect(nextRetryDelayMs(1, undefined, now, schedule, half)).toBe(2_500);
    expect(nextRetryDelayMs(3, undefined, now, schedule, half)).toBe(900_000);
  });

  it('gives up after the last step, whatever the receiver asks', () => {
    expect(nextRetryDelayMs(4, undefined, now, schedule, half)).toBeUndefined();
    expect(nextRetryDelayMs(4, '1', now, schedule, half)).toBeUndefined();
  });

  it("waits for the receiver's Retry-After when it is longer than the jittered delay", () => {
    expect(nextRetryDelayMs(1, '120', now, schedule, half)).toBe(120_000);
    expect(nextRetryDelayMs(1, 'Thu, 01 Jan 2026 00:00:30 GMT', now, schedule, half)).toBe(30_000);
    expect(nextRetryDelayMs(2, '1', now, schedule, half)).toBe(150_000);
  });

  it('caps Retry-After at the longest step and ignores one it cannot read', () => {
    expect(nextRetryDelayMs(1, '86400', now, schedule, half)).toBe(1_800_000);
    expect(nextRetryDelayMs(1, 'soon', now, schedule, half)).toBe(2_500);
  });
});
