// A real event, end to end: the API (core's handlers) writes the outbox row in the action's transaction,
// the dispatcher delivers it over HTTPS, the payload matches the spec's webhook schema, the signature
// verifies with the secret from the create response, and the callback in the payload posts back.
// Also the SSRF check at subscription time and the 410 → disabled subscription → no new events rule.

import { type SelfSignedCertificate, selfSignedCertificate } from '@platform-api/test-support';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { type Dispatcher, startDispatcher } from '../../src/delivery/dispatcher.js';
import { checkWebhookTarget } from '../../src/delivery/ssrf.js';
import { describeEachDialect } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { schemaProblems } from '../helpers/spec-validator.js';
import { quietLogger, type Receiver, removeCertificate, startReceiver, testConfig } from './support.js';

describeEachDialect('a chat event delivered end to end on %s', (dialect) => {
  let certificate: SelfSignedCertificate;
  let receiver: Receiver;
  let server: TestServer;
  let dispatcher: Dispatcher;
  let token: string;
  let channelId: string;
  let integration: { id: string; signingSecret: string };
  let subscriptionId: string;

  beforeAll(async () => {
    certificate = selfSignedCertificate();
    receiver = await startReceiver(certificate);
    const { delivery } = testConfig(certificate);
    // The real SSRF check with the test allow-list (127.0.0.1/32, ::1), not the helper's accept-all.
    server = await startTestServer(dialect, { delivery }, { checkWebhookTarget });
    // The system clock, so that signatures carry a current timestamp the verifier accepts.
    dispatcher = startDispatcher({
      database: server.database,
      config: server.config,
      logger: quietLogger,
      clock: systemClock,
    });
    token = await server.token(['chat']);
    const channel = await server.call('POST', '/v1/chat/channels', {
      token,
      json: { title: 'deploys', visibility: 'PUBLIC' },
    });
    expect(channel.status).toBe(201);
    channelId = channel.body.id;
    const created = await server.call('POST', '/v1/chat/integrations', {
      token,
      json: {
        name: 'Deploy bot',
        description: 'Listens to deploy talk',
        scope: 'PUBLIC_CHANNELS',
        headers: [{ name: 'X-Integration-Key', value: 'k-123' }],
        signDeliveries: true,
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.signingSecret).toMatch(/^whsec_/);
    integration = created.body;
  });

  afterAll(async () => {
    await dispatcher?.stop();
    await server?.close();
    await receiver?.close();
    if (certificate) removeCertificate(certificate);
  });

  it('refuses a subscription to a non-global address with 400 and the reason', async () => {
    for (const url of [
      'https://10.0.0.1/hook',
      'https://169.254.169.254/hook',
      'https://[::ffff:127.0.0.2]/hook',
    ]) {
      const refused = await server.call('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
        token,
        json: { eventType: 'MESSAGE_POSTED', url },
      });
      expect(refused.status, url).toBe(400);
      expect(JSON.stringify(refused.body.details)).toContain('not a globally reachable address');
    }
  });

  it('delivers MESSAGE_POSTED, signed, valid against the spec, with a working callback', async () => {
    const subscription = await server.call('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
      token,
      json: { eventType: 'MESSAGE_POSTED', url: receiver.url('/chat-events') },
    });
    expect(subscription.status).toBe(200);
    subscriptionId = subscription.body.id;

    const posted = await server.call('POST', `/v1/chat/channels/${channelId}/messages`, {
      token,
      json: { text: 'shipping v2 now' },
    });
    expect(posted.status).toBe(201);
    await dispatcher.drain();

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    if (!request) throw new Error('no request');
    expect(request.path).toBe('/chat-events');
    expect(request.headers['x-integration-key']).toBe('k-123');
    const event = new Webhook(integration.signingSecret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    }) as {
      event: { type: string };
      message: { text: string };
      callback: { url: string; headers: Record<string, string> };
    };
    expect(schemaProblems('MessagePostedEvent', event)).toEqual([]);
    expect(schemaProblems('ChatEvent', event)).toEqual([]);
    expect(event.event.type).toBe('MESSAGE_POSTED');
    expect(event.message.text).toBe('shipping v2 now');

    const row = await server.platform.services.db
      .selectFrom('event_deliveries')
      .selectAll()
      .where('id', '=', String(request.headers['webhook-id']))
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'delivered', subscription_id: subscriptionId, attempts: 1 });

    // The integration answers through the callback it was given.
    const reply = await fetch(event.callback.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...event.callback.headers },
      body: JSON.stringify({ content: { text: 'deploy acknowledged' } }),
    });
    expect(reply.status).toBe(201);
  });

  it('410 Gone disables the subscription: later events are not even queued', async () => {
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 410 });
    await server.call('POST', `/v1/chat/channels/${channelId}/messages`, { token, json: { text: 'one' } });
    await dispatcher.drain();
    expect(receiver.requests).toHaveLength(1);
    const subscription = await server.platform.services.db
      .selectFrom('subscriptions')
      .select('disabled_at')
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(subscription.disabled_at).not.toBeNull();

    receiver.respond = () => ({ status: 204 });
    const before = await server.platform.services.db.selectFrom('event_deliveries').select('id').execute();
    await server.call('POST', `/v1/chat/channels/${channelId}/messages`, { token, json: { text: 'two' } });
    await dispatcher.drain();
    const after = await server.platform.services.db.selectFrom('event_deliveries').select('id').execute();
    expect(after).toHaveLength(before.length);
    expect(receiver.requests).toHaveLength(1);
  });
});
