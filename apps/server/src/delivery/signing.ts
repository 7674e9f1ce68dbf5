// Standard Webhooks signing (https://www.standardwebhooks.com): HMAC-SHA256 over
// `${webhook-id}.${webhook-timestamp}.${body}` with the integration's `whsec_…` secret, as implemented by
// the `standardwebhooks` package, so receivers can verify with any Standard Webhooks library.
import { Webhook } from 'standardwebhooks';

export interface SignatureHeaders {
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signature headers for one attempt; the timestamp is the attempt's, so each retry is signed anew. */
export function signDelivery(
  secret: string,
  webhookId: string,
  nowMs: number,
  body: string,
): SignatureHeaders {
  const timestamp = new Date(Math.floor(nowMs / 1000) * 1000);
  return {
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(webhookId, timestamp, body),
  };
}
