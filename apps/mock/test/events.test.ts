// Events from the state: the writes the spec declares as sending an event deliver it to the caller's
// subscriptions — a real HTTPS receiver here (self-signed, trusted through webhookCa) — signed with the
// integration's secret and verified by the `standardwebhooks` library, valid against the spec's webhook,
// carrying what the write made; the event's callback is live: what the receiver posts through it is listed in
// the channel, and a token of another channel or none is refused. Another tenant's writes send it nothing.
import { type SelfSignedCertificate, selfSignedCertificate } from '@platform-api/test-support';
import { loadBundle } from '@platform-api/validator';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatEvents } from '../src/events.js';
import { type MockServer, startMock } from '../src/index.js';
import { bearer, Conforming } from './support/exchange.js';
import { type Received, type Receiver, startReceiver } from './support/receiver.js';

const events = new ChatEvents();
let cert: SelfSignedCertificate;
let receiver: Receiver;
let receiverUrl: string;
let received: Received[] = [];
let mock: MockServer;
const platform = new Conforming(loadBundle('platform'), () => mock.url);

/** Resolves once the receiver holds `count` deliveries (the write's answer does not wait for them). */
async function deliveries(count: number): Promise<Received[]> {
  for (let waited = 0; received.length < count && waited < 600; waited += 1)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return received.slice(0, count);
}

beforeAll(async () => {
  cert = selfSignedCertificate();
  receiver = await startReceiver(cert);
  receiverUrl = receiver.url;
  received = receiver.received;
  mock = await startMock('platform', { port: 0, webhookCa: cert.cert });
});

afterAll(async () => {
  await mock?.close();
  await receiver?.close();
  cert?.remove();
});

describe('events from the state', () => {
  it('delivers a posted message to the subscription, signed, with a live callback', async () => {
    const auth = await bearer(mock.url, 'events-owner', 'chat');
    const integration = (
      await platform.send('POST', '/v1/chat/integrations', {
        headers: auth,
        body: {
          name: 'Deploy bot',
          scope: 'PUBLIC_CHANNELS',
          headers: [{ name: 'Authorization', value: 'Bearer receiver-secret' }],
          signDeliveries: true,
        },
      })
    ).json as { id: string; signingSecret: string };
    // The secret is answered once, by the create.
    expect(integration.signingSecret).toMatch(/^whsec_/);
    expect(
      (await platform.send('GET', `/v1/chat/integrations/${integration.id}`, { headers: auth })).json,
    ).not.toHaveProperty('signingSecret');
    await platform.send('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
      headers: auth,
      body: { eventType: 'MESSAGE_POSTED', url: receiverUrl },
    });
    const channel = (
      await platform.send('POST', '/v1/chat/channels', { headers: auth, body: { title: 'deployments' } })
    ).json as { id: string };

    // Another tenant's message sends this receiver nothing.
    const other = await bearer(mock.url, 'events-other', 'chat');
    const othersChannel = (
      await platform.send('POST', '/v1/chat/channels', { headers: other, body: { title: 'elsewhere' } })
    ).json as { id: string };
    await platform.send('POST', `/v1/chat/channels/${othersChannel.id}/messages`, {
      headers: other,
      body: { text: 'not for you' },
    });

    const posted = await platform.send('POST', `/v1/chat/channels/${channel.id}/messages`, {
      headers: auth,
      body: { text: 'Is build 1433 ready?' },
    });
    expect(posted.status).toBe(201);
    const [delivery] = await deliveries(1);
    if (!delivery) throw new Error('no delivery');
    const event = events.event('MESSAGE_POSTED');
    expect(
      events.validator.validateRequest(event.operation, {
        headers: new Headers(delivery.headers),
        body: delivery.body,
      }),
    ).toEqual([]);
    expect(delivery.headers.authorization).toBe('Bearer receiver-secret');
    const payload = new Webhook(integration.signingSecret).verify(delivery.body, delivery.headers) as {
      message: { text: string };
      channel: { id: string; title: string };
      callback: { url: string; headers: Record<string, string> };
    };
    expect(payload.message.text).toBe('Is build 1433 ready?');
    expect(payload.channel).toMatchObject({ id: channel.id, title: 'deployments' });
    expect(payload.callback.url).toBe(`${mock.url}/v1/chat/bots/message/${channel.id}`);

    // The callback takes a message back into the channel; it is listed there.
    const answer = await platform.send('POST', new URL(payload.callback.url).pathname, {
      headers: payload.callback.headers,
      body: { content: { text: 'Yes, deploying.' } },
    });
    expect(answer.status).toBe(201);
    const listed = (await platform.send('GET', `/v1/chat/channels/${channel.id}/messages`, { headers: auth }))
      .json as {
      messages: Array<{ text: string }>;
    };
    expect(listed.messages.map((message) => message.text)).toEqual([
      'Is build 1433 ready?',
      'Yes, deploying.',
    ]);
    // The token is for that channel alone, and none is no token.
    const elsewhere = await platform.send('POST', `/v1/chat/bots/message/${othersChannel.id}`, {
      headers: payload.callback.headers,
      body: { content: { text: 'x' } },
    });
    expect(elsewhere.status).toBe(401);
    const without = await platform.send('POST', new URL(payload.callback.url).pathname, {
      body: { content: { text: 'x' } },
    });
    expect(without.status).toBe(401);
    expect(received).toHaveLength(1);
  });

  it('delivers a slash command with its command line as the message text', async () => {
    const auth = await bearer(mock.url, 'events-commands', 'chat');
    const integration = (
      await platform.send('POST', '/v1/chat/integrations', {
        headers: auth,
        body: { name: 'Commands', scope: 'PUBLIC_CHANNELS', headers: [], signDeliveries: false },
      })
    ).json as { id: string };
    await platform.send('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
      headers: auth,
      body: { eventType: 'SLASH_COMMAND', url: receiverUrl, slashCommand: 'deploy' },
    });
    const channel = (
      await platform.send('POST', '/v1/chat/channels', { headers: auth, body: { title: 'ops' } })
    ).json as {
      id: string;
    };
    const before = received.length;
    const invoked = await platform.send('POST', `/v1/chat/channels/${channel.id}/commands`, {
      headers: auth,
      body: { commandLine: '/deploy prod' },
    });
    expect(invoked.status).toBe(202);
    const delivery = (await deliveries(before + 1))[before];
    if (!delivery) throw new Error('no delivery');
    expect(delivery.headers['webhook-signature']).toBeUndefined();
    const payload = JSON.parse(delivery.body) as { message: { text: string }; channel: { id: string } };
    expect([payload.message.text, payload.channel.id]).toEqual(['/deploy prod', channel.id]);
  });
});
