// `trigger`: delivers one chat event to a receiver the way the service does (the spec's example payload,
// the delivery headers the reference server sends, a Standard Webhooks signature), with a callback URL
// served here, and reports whether the receiver acknowledged it and posted back a valid message.
import { randomBytes } from 'node:crypto';
import { isObject, type JsonObject } from '@platform-api/validator';
import { type CallbackServer, type PostBack, startCallbackServer } from './callback-server.js';
import { type Delivery, deliver, deliveryHeaders } from './delivery.js';
import { ChatEvents } from './events.js';
import { generateSecret } from './signing.js';

/** The reference server's User-Agent, marked as the mock's. */
const USER_AGENT = 'platform-api-webhooks/1 (mock trigger)';

/** How long a post-back is waited for by default: a receiver that answers does so within a second or two. */
export const DEFAULT_WAIT_MS = 5_000;

export interface TriggerOptions {
  /** The event type: a webhook of the platform bundle (`MESSAGE_POSTED`). */
  eventType: string;
  /** The receiver (https; http is sent too, with a warning, as the service would refuse it). */
  to: string;
  /** The integration's configured headers (e.g. an Authorization the receiver checks), sent first. */
  headers?: Record<string, string>;
  /** `whsec_…`; a new one is generated (and reported) when absent. */
  secret?: string;
  /** Where the callback endpoint listens: 127.0.0.1 and a free port by default. */
  callbackHost?: string;
  callbackPort?: number;
  /** The callback URL's base as the receiver must see it (a tunnel), instead of http://host:port. */
  callbackBaseUrl?: string;
  /**
   * How long to wait for a post-back after a 2xx (default 5 s); 0 does not wait. A post-back that comes is
   * checked; none is fine unless `expectPostBack`: the service counts any 2xx as delivered, and a receiver
   * answers in the channel only when it has something to say (the client README's answers slash commands).
   */
  waitMs?: number;
  /** Fail when no post-back comes within `waitMs` (a receiver that should answer every event). */
  expectPostBack?: boolean;
  /** The deadline of the delivery (connect, TLS and the answer): the spec's 10 seconds by default. */
  timeoutMs?: number;
  /** Extra CA certificates (PEM) to trust for an https receiver, as the server's extra CA. */
  ca?: string;
  /** Accept any certificate (a self-signed development receiver). */
  insecure?: boolean;
  /** Progress lines; the CLI prints them. */
  log?: (line: string) => void;
  /** The events of the bundle, when the caller already read them. */
  events?: ChatEvents;
}

export interface TriggerResult {
  ok: boolean;
  eventType: string;
  secret: string;
  webhookId: string;
  headers: Record<string, string>;
  body: string;
  delivery: Delivery;
  callbackUrl?: string;
  /** The post-back, if one came (not awaited when `waitMs` is 0 or the delivery failed). */
  postBack?: PostBack;
}

export type { Delivery };

export async function trigger(options: TriggerOptions): Promise<TriggerResult> {
  const log = options.log ?? (() => {});
  const events = options.events ?? new ChatEvents();
  const event = events.event(options.eventType);
  const target = new URL(options.to);
  if (target.protocol !== 'https:' && target.protocol !== 'http:')
    throw new Error(`--to must be an https URL`);
  if (target.protocol === 'http:')
    log(`warning: ${options.to} is not https; the service delivers to https URLs only`);
  const secret = options.secret ?? generateSecret();
  if (!options.secret) log(`signing secret (generated): ${secret}`);

  const webhookId = `evt_${randomBytes(10).toString('hex')}`;
  const payload: JsonObject = event.example;
  if (isObject(payload.event) && 'id' in payload.event) payload.event.id = webhookId;

  const callback = await serveCallback(payload, event.type, events, options, log);

  try {
    const body = JSON.stringify(payload);
    const headers = deliveryHeaders({
      event,
      webhookId,
      configured: options.headers ?? {},
      secret,
      body,
      userAgent: USER_AGENT,
    });
    // What is sent must be what the spec documents; a failure here is a defect of the mock or the spec.
    const problems = events.validator.validateRequest(event.operation, {
      headers: new Headers(headers),
      body,
    });
    if (problems.length > 0) {
      throw new Error(
        `The ${event.type} delivery does not match the spec:\n${problems.map((p) => p.message).join('\n')}`,
      );
    }

    log(`POST ${options.to} (${event.type}, webhook-id ${webhookId})`);
    const delivery = await deliver(target, headers, body, options);
    const base = {
      eventType: event.type,
      secret,
      webhookId,
      headers,
      body,
      delivery,
      ...(callback ? { callbackUrl: callback.url } : {}),
    };
    if (delivery.status === undefined) {
      log(`not delivered: ${delivery.error}`);
      return { ok: false, ...base };
    }
    const acknowledged = delivery.status >= 200 && delivery.status < 300;
    log(`receiver answered ${delivery.status}${acknowledged ? '' : ` (${meaning(delivery.status)})`}`);
    if (!acknowledged) return { ok: false, ...base };

    if (!callback) return { ok: true, ...base };
    const { ok, postBack } = await awaitPostBack(callback, options, log);
    return { ok, ...base, ...(postBack ? { postBack } : {}) };
  } finally {
    await callback?.close();
  }
}

/**
 * When the example has a callback: the endpoint `trigger` serves for the run, put in the payload with a fresh
 * token.
 */
async function serveCallback(
  payload: JsonObject,
  eventType: string,
  events: ChatEvents,
  options: TriggerOptions,
  log: (line: string) => void,
): Promise<CallbackServer | undefined> {
  if (!isObject(payload.callback)) return undefined;
  const channelId = isObject(payload.channel) ? payload.channel.id : undefined;
  if (typeof channelId !== 'string') throw new Error(`${eventType}'s example names no channel`);
  const token = randomBytes(32).toString('hex');
  const callback = await startCallbackServer({
    events,
    channelId,
    token,
    ...(options.callbackHost !== undefined ? { host: options.callbackHost } : {}),
    ...(options.callbackPort !== undefined ? { port: options.callbackPort } : {}),
    ...(options.callbackBaseUrl !== undefined ? { publicBaseUrl: options.callbackBaseUrl } : {}),
  });
  const headers = isObject(payload.callback.headers) ? payload.callback.headers : {};
  payload.callback = { url: callback.url, headers: { ...headers, [events.callback.tokenHeader]: token } };
  log(`callback: ${callback.url} (${events.callback.tokenHeader}: ${token})`);
  return callback;
}

/** Whether the run succeeds after the 2xx, and the post-back, if one came within `waitMs`. */
async function awaitPostBack(
  callback: CallbackServer,
  options: TriggerOptions,
  log: (line: string) => void,
): Promise<{ ok: boolean; postBack?: PostBack }> {
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  if (waitMs === 0) return { ok: true };
  const seconds = `${Math.round(waitMs / 100) / 10} s`;
  log(`waiting up to ${seconds} for a post-back to ${callback.url}`);
  const postBack = await within(callback.postBack, waitMs);
  if (!postBack) {
    if (options.expectPostBack) {
      log(`no post-back within ${seconds} (expected one: --expect-post-back)`);
      return { ok: false };
    }
    log(
      `no post-back within ${seconds}: fine, a post-back is optional (the 2xx is the delivery); ` +
        '--expect-post-back makes it required, --wait gives it longer',
    );
    return { ok: true };
  }
  if (postBack.accepted) log(`post-back accepted (${postBack.status}): ${postBack.body}`);
  else log(`post-back refused (${postBack.status}): ${postBack.problems.join('; ')}`);
  return { ok: postBack.accepted, postBack };
}

/** What the service does with a non-2xx answer (the webhook operations' descriptions). */
function meaning(status: number): string {
  if (status === 410) return 'the service would stop the subscription';
  if (status >= 300 && status < 400) return 'redirects are not followed; the service would retry';
  return 'the service would retry with back-off';
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    promise.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}
