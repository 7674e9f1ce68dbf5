import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatEvents, trigger } from '@platform-api/mock';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhookReceiver, type WebhookReceiverOptions } from '../examples/webhook-receiver.js';
import type { SlashCommandEvent } from '../src/types.js';

// Runs the README's webhook example over real HTTP, with the post-back going to an injected fetch.

const signingSecret = `whsec_${randomBytes(24).toString('base64')}`;
const botToken = 'ab'.repeat(32);
const slashCommand: SlashCommandEvent = {
  event: { type: 'SLASH_COMMAND', id: 'evt_1' },
  owner: { id: 1, displayName: 'Olga Owner', email: 'olga@example.com' },
  organization: { domain: 'acme.example.com' },
  channel: { id: 'c-1', title: 'deployments' },
  callback: {
    url: 'https://acme.example.com/v1/chat/bots/message/c-1',
    headers: { 'x-chat-bot-token': botToken },
  },
  author: { id: 2, displayName: 'Ada', email: 'ada@example.com' },
  message: { text: '/deploy prod' },
};

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function startReceiver(options: Omit<WebhookReceiverOptions, 'fetch'>) {
  const postBacks: { url: string; headers: Headers; body: unknown }[] = [];
  const receive = createWebhookReceiver({
    ...options,
    fetch: async (input, init) => {
      postBacks.push({
        url: String(input),
        headers: new Headers(init?.headers),
        body: JSON.parse(String(init?.body)),
      });
      return new Response(null, { status: 201 });
    },
  });
  server = createServer((request, response) => void receive(request, response));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/events`, postBacks };
}

function deliver(url: string, body: string, headers: Record<string, string>) {
  return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
}

function signedHeaders(id: string, body: string, secret = signingSecret) {
  const timestamp = new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
  };
}

describe('webhook receiver example', () => {
  it('verifies a signed SLASH_COMMAND and posts the answer to callback.url with x-chat-bot-token', async () => {
    const receiver = await startReceiver({ signingSecret });
    const body = JSON.stringify(slashCommand);

    const answer = await deliver(receiver.url, body, signedHeaders('evt_1', body));

    expect(answer.status).toBe(204);
    await vi.waitFor(() => expect(receiver.postBacks).toHaveLength(1));
    const [postBack] = receiver.postBacks;
    expect(postBack?.url).toBe(slashCommand.callback.url);
    expect(postBack?.headers.get('x-chat-bot-token')).toBe(botToken);
    expect(postBack?.body).toEqual({ content: { text: 'Ada ran /deploy prod' } });
  });

  it('rejects a wrong signature with 401 and a tampered body too', async () => {
    const receiver = await startReceiver({ signingSecret });
    const body = JSON.stringify(slashCommand);
    const otherSecret = `whsec_${randomBytes(24).toString('base64')}`;

    expect((await deliver(receiver.url, body, signedHeaders('evt_1', body, otherSecret))).status).toBe(401);
    const tampered = body.replace('/deploy prod', '/deploy everything');
    expect((await deliver(receiver.url, tampered, signedHeaders('evt_1', body))).status).toBe(401);
    expect((await deliver(receiver.url, body, { 'webhook-id': 'evt_1' })).status).toBe(401);
    expect(receiver.postBacks).toHaveLength(0);
  });

  it('handles a redelivery (same webhook-id) once, and accepts unsigned payloads without a secret', async () => {
    const receiver = await startReceiver({});
    const body = JSON.stringify(slashCommand);

    expect((await deliver(receiver.url, body, { 'webhook-id': 'evt_1' })).status).toBe(204);
    expect((await deliver(receiver.url, body, { 'webhook-id': 'evt_1' })).status).toBe(204);
    await vi.waitFor(() => expect(receiver.postBacks).toHaveLength(1));
    expect((await deliver(receiver.url, '{not json', { 'webhook-id': 'evt_2' })).status).toBe(400);
    expect(receiver.postBacks).toHaveLength(1);
  });

  it("takes every event type from the mock's `trigger`, answering those it answers", async () => {
    const receive = createWebhookReceiver({ signingSecret });
    server = createServer((request, response) => void receive(request, response));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const events = new ChatEvents();
    for (const eventType of events.types) {
      // The example answers a slash command and welcomes joiners: their post-back is required, the other
      // events have none (and need none: the 2xx is the delivery).
      const slash = eventType === 'SLASH_COMMAND' || eventType === 'USERS_JOINED_CHANNEL';
      const result = await trigger({
        eventType,
        to: `http://127.0.0.1:${port}/events`,
        secret: signingSecret,
        events,
        waitMs: slash ? 30_000 : 100,
        expectPostBack: slash,
      });
      expect(result, eventType).toMatchObject({ ok: true, delivery: { status: 204 } });
      if (slash) expect(result.postBack).toMatchObject({ status: 201, accepted: true });
      else expect(result.postBack, eventType).toBeUndefined();
    }
  });
});
