import { describe, expect, it } from 'vitest';
import { type CapSettings, DeliveryCaps } from '../../src/delivery/caps.js';

// The dispatcher's isolation policy on its own: time is an argument, no timers, no receivers.

const settings: CapSettings = { concurrency: 64, perSubscription: 64, perHost: 64, timeoutMs: 10_000 };

/** Starts attempts for the subscription until it has no room; returns how many started. */
function fill(caps: DeliveryCaps, subscription: string, host: string, now: number): number {
  let started = 0;
  while (caps.start(subscription, host, now)) started++;
  return started;
}

describe('delivery caps', () => {
  it('gives a subscription not yet known to answer a quarter of its cap at most', () => {
    const caps = new DeliveryCaps(settings);
    expect(fill(caps, 'new', 'a.example:443', 0)).toBe(16);
    expect(caps.excluded(0)).toEqual(['new']);
  });

  it('gives a subscription whose latest attempt was answered 2xx its whole cap while it answers quickly', () => {
    const caps = new DeliveryCaps(settings);
    const first = caps.start('healthy', 'a.example:443', 0);
    if (!first) throw new Error('the first attempt did not start');
    caps.finish(first, true);
    expect(caps.subscriptionCap('healthy', 10)).toBe(64);
    expect(fill(caps, 'healthy', 'a.example:443', 10)).toBe(64);
    // An attempt running for a quarter of the timeout (at most a second) is slow: back to its share.
    expect(caps.subscriptionCap('healthy', 10 + 999)).toBe(64);
    expect(caps.subscriptionCap('healthy', 10 + 1000)).toBe(16);
    expect(caps.excluded(10 + 1000)).toEqual(['healthy']);
  });

  it('shares the window between subscriptions that are not healthy', () => {
    const caps = new DeliveryCaps({ ...settings, concurrency: 12 });
    caps.start('one', 'a.example:443', 0);
    caps.start('two', 'b.example:443', 0);
    // Three subscriptions in flight once it starts: 12 ÷ 3.
    expect(caps.subscriptionCap('three', 0)).toBe(4);
    expect(caps.subscriptionCap('one', 0)).toBe(6);
  });

  it('forgets a failing answer: a subscription whose latest attempt failed gets its share again', () => {
    const caps = new DeliveryCaps(settings);
    const ok = caps.start('flaky', 'a.example:443', 0);
    if (!ok) throw new Error('did not start');
    caps.finish(ok, true);
    const failed = caps.start('flaky', 'a.example:443', 1);
    if (!failed) throw new Error('did not start');
    caps.finish(failed, false);
    expect(caps.subscriptionCap('flaky', 2)).toBe(16);
  });

  it('holds a host at perHost, and leaves the subscriptions that found it full out until an attempt to it ends', () => {
    const caps = new DeliveryCaps({ ...settings, perHost: 2 });
    const first = caps.start('s1', 'shared.example:443', 0);
    expect(caps.start('s2', 'shared.example:443', 0)).toBeDefined();
    expect(caps.start('s3', 'shared.example:443', 0)).toBeUndefined();
    expect(caps.excluded(0)).toEqual(['s3']);
    expect(caps.start('s3', 'other.example:443', 0)).toBeDefined();
    if (!first) throw new Error('did not start');
    caps.finish(first, true);
    expect(caps.excluded(0)).toEqual([]);
    expect(caps.start('s3', 'shared.example:443', 0)).toBeDefined();
  });
});
