// Standard Webhooks signing, as the reference server signs deliveries (apps/server/src/delivery/signing.ts,
// re-expressed here on the same `standardwebhooks` library rather than imported from the server's source):
// HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${body}` keyed with the `whsec_…` secret.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { STANDARD_WEBHOOKS_HEADERS } from './events.js';

/** A new secret of the shape the service issues (`whsec_` + base64 of 24 random bytes). */
export function generateSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The timestamp and signature headers of one delivery attempt, signed at `nowMs` (whole seconds). */
export function signDelivery(
  secret: string,
  webhookId: string,
  nowMs: number,
  body: string,
): Record<string, string> {
  const timestamp = new Date(Math.floor(nowMs / 1000) * 1000);
  return {
    [STANDARD_WEBHOOKS_HEADERS.timestamp]: String(timestamp.getTime() / 1000),
    [STANDARD_WEBHOOKS_HEADERS.signature]: new Webhook(secret).sign(webhookId, timestamp, body),
  };
}
