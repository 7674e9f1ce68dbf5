import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders } from '../../src/delivery/headers.js';

describe('delivery headers', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const delivery = (headers: unknown) => ({
    id: 'c0ffee00-0000-4000-8000-000000000001',
    event_type: 'MESSAGE_POSTED',
    headers: JSON.stringify(headers),
  });

  it("puts the integration's headers first and its own over them", () => {
    const headers = deliveryHeaders(
      delivery([
        { name: 'X-Team', value: 'a' },
        { name: 'x-team', value: 'b' },
        { name: 'Content-Type', value: 'text/plain' },
        { name: 'Webhook-Id', value: 'forged' },
        { name: '__proto__', value: 'just a header' },
      ]),
      null,
      now,
      '{}',
    );
    expect(Object.entries(headers)).toEqual([
      ['x-team', 'a, b'],
      ['__proto__', 'just a header'],
      ['user-agent', 'platform-api-webhooks/1'],
      ['content-type', 'application/json'],
      ['webhook-id', 'c0ffee00-0000-4000-8000-000000000001'],
      ['x-chat-event-type', 'MESSAGE_POSTED'],
    ]);
  });

  it('keeps a configured User-Agent', () => {
    const headers = deliveryHeaders(delivery([{ name: 'User-Agent', value: 'mine' }]), null, now, '{}');
    expect(headers['user-agent']).toBe('mine');
  });

  it('signs the body when the integration has a secret', () => {
    const secret = `whsec_${Buffer.from('a signing secret of 32 bytes!!!!').toString('base64')}`;
    const body = '{"event":{}}';
    // The receiver's library checks the timestamp against its own clock.
    const sentAt = Date.now();
    const headers = deliveryHeaders(delivery([]), secret, sentAt, body);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(sentAt / 1000)));
    expect(new Webhook(secret).verify(body, headers)).toBeDefined();
  });

  it('refuses stored headers of another shape', () => {
    expect(() => deliveryHeaders(delivery({ name: 'a' }), null, now, '{}')).toThrow('not a JSON array');
    expect(() => deliveryHeaders(delivery([{ name: 'a', value: 1 }]), null, now, '{}')).toThrow(
      '{name, value} strings',
    );
  });
});
