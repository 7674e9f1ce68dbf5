// The headers of one webhook attempt: the integration's configured ones (snapshotted in the outbox row),
// then those the dispatcher owns, and the Standard Webhooks signature when the integration signs.
import type { ClaimedDelivery } from '../db/outbox-store.js';
import { signDelivery } from './signing.js';

/** Headers the dispatcher sets itself; an integration's configured header of the same name is dropped. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'upgrade',
  'webhook-id',
  'x-chat-event-type',
  'webhook-timestamp',
  'webhook-signature',
]);

const USER_AGENT = 'platform-api-webhooks/1';

/** Throws when the stored headers are not a JSON array of {name, value} strings. */
export function deliveryHeaders(
  delivery: Pick<ClaimedDelivery, 'id' | 'event_type' | 'headers'>,
  signingSecret: string | null,
  now: number,
  body: string,
): Record<string, string> {
  // No prototype: a configured header named "constructor" or "__proto__" is just a header.
  const headers: Record<string, string> = Object.create(null);
  const configured = JSON.parse(delivery.headers) as unknown;
  if (!Array.isArray(configured)) throw new Error('stored headers are not a JSON array');
  for (const header of configured as { name?: unknown; value?: unknown }[]) {
    if (typeof header?.name !== 'string' || typeof header.value !== 'string') {
      throw new Error('stored headers must be {name, value} strings');
    }
    const name = header.name.toLowerCase();
    if (RESERVED_HEADERS.has(name)) continue;
    headers[name] = headers[name] === undefined ? header.value : `${headers[name]}, ${header.value}`;
  }
  headers['user-agent'] ??= USER_AGENT;
  headers['content-type'] = 'application/json';
  headers['webhook-id'] = delivery.id;
  headers['x-chat-event-type'] = delivery.event_type;
  if (signingSecret) Object.assign(headers, signDelivery(signingSecret, delivery.id, now, body));
  return headers;
}
