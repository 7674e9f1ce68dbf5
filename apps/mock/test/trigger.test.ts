// `trigger` against a real local HTTPS receiver (self-signed certificate, trusted through `ca`): every
// event type of the bundle arrives signed so that the `standardwebhooks` library verifies it, matches the
// spec, and the receiver's post-back to `callback.url` is accepted with a spec-valid answer; refused
// post-backs get spec-valid ApiErrors, and a receiver that fails fails the trigger (one that posts nothing
// back, only with expectPostBack: a post-back is optional).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type SelfSignedCertificate, selfSignedCertificate } from '@platform-api/test-support';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChatEvents } from '../src/events.js';
import { generateSecret } from '../src/signing.js';
import { trigger } from '../src/trigger.js';
import { type Received, type Receiver, startReceiver } from './support/receiver.js';

const events = new ChatEvents();
const { validator } = events;

/** What the receiver does with a delivery: the status it answers and the post-back it makes, if any. */
interface Behaviour {
  status: number;
  postBack?: (payload: { callback: { url: string; headers: Record<string, string> } }) => Promise<void>;
}

let cert: SelfSignedCertificate;
let receiver: Receiver;
let receiverUrl: string;
let received: Received[];
let behaviour: Behaviour;
/** Answers of the callback endpoint to the receiver's post-backs. */
let postBackAnswers: Array<{ status: number; headers: Headers; body: string }>;
/** The receiver's post-backs under way: a test awaits them before it reads `postBackAnswers`. */
let postingBack: Promise<void>[];

async function postedBack(): Promise<void> {
  await Promise.all(postingBack);
}

async function postBack(url: string, headers: Record<string, string>, body: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers, body });
  postBackAnswers.push({ status: response.status, headers: response.headers, body: await response.text() });
}

const postValidMessage: Behaviour['postBack'] = ({ callback }) =>
  postBack(
    callback.url,
    { ...callback.headers, 'content-type': 'application/json' },
    JSON.stringify({ content: { text: 'Deploying build 1432 to prod…' } }),
  );

beforeAll(async () => {
  cert = selfSignedCertificate();
  receiver = await startReceiver(cert, ({ body }) => ({
    status: behaviour.status,
    // After the 2xx, as a receiver that answers at once and posts back later.
    afterwards: () => {
      if (behaviour.postBack) postingBack.push(behaviour.postBack(JSON.parse(body)));
    },
  }));
  receiverUrl = receiver.url;
  received = receiver.received;
});

afterAll(async () => {
  await receiver?.close();
  cert?.remove();
});

beforeEach(() => {
  received.length = 0;
  postBackAnswers = [];
  postingBack = [];
  behaviour = { status: 204, postBack: postValidMessage };
});

describe('the event types', () => {
  it('are the webhooks of the platform bundle', () => {
    expect(events.types).toEqual(Object.keys(validator.document.webhooks ?? {}));
    expect(events.types.length).toBeGreaterThan(0);
  });
});

describe.each(events.types)('trigger %s', (eventType) => {
  it('delivers the signed, spec-valid example and the post-back is accepted', async () => {
    const secret = generateSecret();
    const result = await trigger({ eventType, to: receiverUrl, secret, ca: cert.cert, waitMs: 10_000 });

    expect(received).toHaveLength(1);
    const [delivery] = received;
    if (!delivery) throw new Error('no delivery');
    // The signature verifies with the Standard Webhooks library, and only with this secret and body.
    const payload = new Webhook(secret).verify(delivery.body, delivery.headers) as Record<string, unknown>;
    expect(() => new Webhook(generateSecret()).verify(delivery.body, delivery.headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${delivery.body} `, delivery.headers)).toThrow();
    // Headers and body as the spec documents the webhook; the event id is the webhook-id.
    const operation = events.event(eventType).operation;
    expect(
      validator.validateRequest(operation, { headers: new Headers(delivery.headers), body: delivery.body }),
    ).toEqual([]);
    expect(payload).toMatchObject({ event: { type: eventType, id: delivery.headers['webhook-id'] } });
    expect(delivery.headers['x-chat-event-type']).toBe(eventType);
    expect(delivery.headers['user-agent']).toMatch(/^platform-api-webhooks\/1\b/);

    expect(result).toMatchObject({
      ok: true,
      delivery: { status: 204 },
      postBack: { status: 201, accepted: true },
    });
    await postedBack();
    expect(postBackAnswers).toHaveLength(1);
    const [answer] = postBackAnswers;
    if (!answer) throw new Error('no post-back answer');
    expect(validator.validateResponse(events.callback.operation, answer)).toEqual([]);
    expect(JSON.parse(answer.body)).toMatchObject({
      text: 'Deploying build 1432 to prod…',
      channelId: (payload.channel as { id: string }).id,
    });
  });
});

describe('trigger', () => {
  const eventType = 'MESSAGE_POSTED';

  it('generates and reports a secret when none is given', async () => {
    behaviour.postBack = undefined;
    const result = await trigger({ eventType, to: receiverUrl, ca: cert.cert, waitMs: 0 });
    expect(result.ok).toBe(true);
    expect(result.secret).toMatch(/^whsec_/);
    const [delivery] = received;
    if (!delivery) throw new Error('no delivery');
    expect(() => new Webhook(result.secret).verify(delivery.body, delivery.headers)).not.toThrow();
  });

  it("sends the integration's configured headers, which do not replace the delivery's own", async () => {
    behaviour.postBack = undefined;
    const secret = generateSecret();
    const result = await trigger({
      eventType,
      to: receiverUrl,
      secret,
      ca: cert.cert,
      waitMs: 0,
      headers: { Authorization: 'Bearer receiver-secret', 'Webhook-Id': 'evt_forged', 'Content-Length': '1' },
    });
    expect(result.ok).toBe(true);
    const [delivery] = received;
    if (!delivery) throw new Error('no delivery');
    expect(delivery.headers.authorization).toBe('Bearer receiver-secret');
    expect(delivery.headers['webhook-id']).toBe(result.webhookId);
    expect(() => new Webhook(secret).verify(delivery.body, delivery.headers)).not.toThrow();
  });

  it('refuses an invalid post-back body with a spec-valid 400 and fails', async () => {
    behaviour.postBack = ({ callback }) =>
      postBack(
        callback.url,
        { ...callback.headers, 'content-type': 'application/json' },
        JSON.stringify({ content: { text: '' } }),
      );
    const result = await trigger({ eventType, to: receiverUrl, ca: cert.cert, waitMs: 10_000 });
    expect(result.ok).toBe(false);
    expect(result.postBack).toMatchObject({ status: 400, accepted: false });
    await postedBack();
    const [answer] = postBackAnswers;
    if (!answer) throw new Error('no post-back answer');
    expect(answer.status).toBe(400);
    expect(validator.validateResponse(events.callback.operation, answer)).toEqual([]);
    expect(JSON.parse(answer.body).details).toEqual([
      { field: 'body.content.text', message: expect.stringMatching(/fewer than 1 characters/) },
    ]);
  });

  it('refuses a post-back without the token with a spec-valid 401', async () => {
    behaviour.postBack = ({ callback }) =>
      postBack(
        callback.url,
        { 'content-type': 'application/json' },
        JSON.stringify({ content: { text: 'hi' } }),
      );
    const result = await trigger({ eventType, to: receiverUrl, ca: cert.cert, waitMs: 10_000 });
    expect(result).toMatchObject({ ok: false, postBack: { status: 401, accepted: false } });
    await postedBack();
    const [answer] = postBackAnswers;
    if (!answer) throw new Error('no post-back answer');
    expect(validator.validateResponse(events.callback.operation, answer)).toEqual([]);
    expect(answer.headers.get('www-authenticate')).toBeTruthy();
  });

  it('refuses a post-back with another content type with a spec-valid 415', async () => {
    behaviour.postBack = ({ callback }) =>
      postBack(callback.url, { ...callback.headers, 'content-type': 'text/plain' }, 'hi');
    const result = await trigger({ eventType, to: receiverUrl, ca: cert.cert, waitMs: 10_000 });
    expect(result).toMatchObject({ ok: false, postBack: { status: 415 } });
    await postedBack();
    const [answer] = postBackAnswers;
    if (!answer) throw new Error('no post-back answer');
    expect(validator.validateResponse(events.callback.operation, answer)).toEqual([]);
  });

  it('succeeds without a post-back (optional: the 2xx is the delivery), fails with expectPostBack', async () => {
    behaviour.postBack = undefined;
    const lines: string[] = [];
    const result = await trigger({
      eventType,
      to: receiverUrl,
      ca: cert.cert,
      waitMs: 200,
      log: (line) => lines.push(line),
    });
    expect(result).toMatchObject({ ok: true, delivery: { status: 204 } });
    expect(result.postBack).toBeUndefined();
    expect(lines.join('\n')).toMatch(/no post-back within 0\.2 s: fine, a post-back is optional/);
    const expected = await trigger({
      eventType,
      to: receiverUrl,
      ca: cert.cert,
      waitMs: 200,
      expectPostBack: true,
    });
    expect(expected).toMatchObject({ ok: false, delivery: { status: 204 } });
  });

  it('fails when the receiver does not answer 2xx', async () => {
    behaviour = { status: 410 };
    const result = await trigger({ eventType, to: receiverUrl, ca: cert.cert, waitMs: 10_000 });
    expect(result).toMatchObject({ ok: false, delivery: { status: 410 } });
  });

  it('fails when the receiver certificate is not trusted, and --insecure accepts it', async () => {
    behaviour.postBack = undefined;
    const untrusted = await trigger({ eventType, to: receiverUrl, waitMs: 0 });
    expect(untrusted.ok).toBe(false);
    expect(untrusted.delivery.error).toMatch(/certificate/i);
    expect(received).toHaveLength(0);
    const insecure = await trigger({ eventType, to: receiverUrl, insecure: true, waitMs: 0 });
    expect(insecure.ok).toBe(true);
  });
});

describe('the CLI', () => {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
  const run = promisify(execFile);

  it('triggers every event type with `all` and exits 0 when each post-back is accepted', async () => {
    const secret = generateSecret();
    const { stdout } = await run(process.execPath, [
      cli,
      'trigger',
      'all',
      '--to',
      receiverUrl,
      '--secret',
      secret,
      '--header',
      'Authorization: Bearer receiver-secret',
      '--ca',
      cert.certFile,
      '--wait',
      '10',
    ]);
    await postedBack();
    expect(postBackAnswers.map((answer) => answer.status)).toEqual(events.types.map(() => 201));
    expect(received.map((delivery) => delivery.headers['x-chat-event-type'])).toEqual(events.types);
    for (const delivery of received)
      expect(() => new Webhook(secret).verify(delivery.body, delivery.headers)).not.toThrow();
    for (const type of events.types) {
      expect(stdout).toContain(`[${type}] post-back accepted (201)`);
      expect(stdout).toContain(`[${type}] ok`);
    }
  });

  it('exits 1 when the receiver refuses the event', async () => {
    behaviour = { status: 500 };
    const failed = run(process.execPath, [
      cli,
      'trigger',
      'SLASH_COMMAND',
      '--to',
      receiverUrl,
      '--ca',
      cert.certFile,
    ]);
    await expect(failed).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining('receiver answered 500'),
    });
  });

  it('prints the usage for --help and -h after every command, and exits 0', async () => {
    for (const args of [
      ['--help'],
      ['-h'],
      ['help'],
      ['platform', '--help'],
      ['site', '-h'],
      ['trigger', '--help'],
      ['trigger', '-h'],
      ['trigger', 'MESSAGE_POSTED', '--to', receiverUrl, '--help'],
      ['trigger', '--list', '-h'],
    ]) {
      const { stdout, stderr } = await run(process.execPath, [cli, ...args]);
      expect(stderr, args.join(' ')).toBe('');
      expect(stdout, args.join(' ')).toContain('platform-api-mock trigger <EVENT_TYPE|all ...> --to <url>');
    }
    expect(received).toEqual([]);
  });

  it('exits 2 on an unknown event type', async () => {
    await expect(
      run(process.execPath, [cli, 'trigger', 'NO_SUCH_EVENT', '--to', receiverUrl]),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Unknown event type NO_SUCH_EVENT'),
    });
  });

  it('exits 2, naming the option, on a value an option refuses, and on an unknown flag', async () => {
    for (const [args, named] of [
      [['trigger', 'MESSAGE_POSTED', '--to', receiverUrl, '--wait', 'soon'], '--wait'],
      [['trigger', 'MESSAGE_POSTED', '--to', receiverUrl, '--header', 'no colon'], '--header'],
      [['trigger', 'MESSAGE_POSTED', '--to', receiverUrl, '--no-such-flag'], '--no-such-flag'],
      [['platform', '--max-items', '0'], '--max-items'],
    ] as const) {
      await expect(run(process.execPath, [cli, ...args]), args.join(' ')).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining(named),
      });
    }
    expect(received).toEqual([]);
  });
});
