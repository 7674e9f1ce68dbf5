// The platform contract suite against the reference server (apps/server), run as a black box on
// SQLite and on PostgreSQL: the generic phases (examples, ignored_auth, negative data), stateful
// walks through Location headers (ensure_resource_availability, use_after_free), tenant isolation,
// and every event the server delivers checked against the spec's webhooks by a real HTTPS receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallOptions,
  type CallResult,
  ContractClient,
  examplesPhase,
  ignoredAuthPhase,
  loadBundle,
  namedExample,
  namedObjectExample,
  negativeDataPhase,
  type SelfSignedCertificate,
  SpecValidator,
  selfSignedCertificate,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../src/index.js';

import {
  type ReferenceServer,
  referenceServerDatabases,
  startReferenceServer,
} from './support/reference-server.js';

const validator = new SpecValidator(loadBundle('platform'));
const allScopes = ['user', 'data', 'chat'];

const databases = await referenceServerDatabases('platform contract suite against the reference server');

describe.each(databases)('platform API on the reference server (%s)', (database) => {
  let server: ReferenceServer;
  let receiver: WebhookReceiver;
  let client: ContractClient;
  let otherTenant: ContractClient;
  let dataOnly: ContractClient;
  let credentials: { clientId: string; clientSecret: string };
  let tls: SelfSignedCertificate | undefined;

  /** A client whose bearer token is fetched through the spec's own token operation. */
  async function clientFor(
    creds: { clientId: string; clientSecret: string },
    scopes: string[],
  ): Promise<ContractClient> {
    const tokenClient = new ContractClient({
      validator,
      baseUrl: server.url,
      credentials: { basic: { username: creds.clientId, password: creds.clientSecret } },
    });
    const token = await tokenClient.call('getAccessToken', {
      query: { grant_type: 'client_credentials', scope: scopes.join(' ') },
    });
    expect(token.problems).toEqual([]);
    expect(token.status).toBe(200);
    const accessToken = (token.json as { access_token: string }).access_token;
    return new ContractClient({
      validator,
      baseUrl: server.url,
      credentials: {
        bearer: accessToken,
        basic: { username: creds.clientId, password: creds.clientSecret },
      },
    });
  }

  /** Calls an operation and asserts the response conforms to the spec and has the expected status. */
  async function expectCall(
    operationId: string,
    options: CallOptions,
    status: number,
    as: ContractClient = client,
  ): Promise<CallResult> {
    const result = await as.call(operationId, options);
    expect(result.problems, `${operationId}: ${result.text.slice(0, 400)}`).toEqual([]);
    expect(result.status, `${operationId}: ${result.text.slice(0, 400)}`).toBe(status);
    return result;
  }

  const idFromLocation = (result: CallResult) => {
    const location = result.headers.get('location');
    expect(location).toBeTruthy();
    return decodeURIComponent(String(location).split('/').pop() ?? '');
  };

  beforeAll(async () => {
    tls = selfSignedCertificate();
    receiver = await startWebhookReceiver({ validator, tls });
    server = await startReferenceServer(database, {
      PLATFORM_WEBHOOK_ALLOWLIST: '127.0.0.1/32',
      PLATFORM_WEBHOOK_CA_FILE: tls.certFile,
      PLATFORM_DELIVERY_RETRY_SCHEDULE: '200ms,500ms,1s',
      PLATFORM_DELIVERY_POLL_INTERVAL: '100ms',
    });
    credentials = await server.createClient(`contract-${database}`, allScopes);
    client = await clientFor(credentials, allScopes);
    otherTenant = await clientFor(
      await server.createClient(`contract-other-${database}`, allScopes),
      allScopes,
    );
    dataOnly = await clientFor(await server.createClient(`contract-data-${database}`, ['data']), ['data']);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    tls?.remove();
  });

  describe('examples (any documented answer; ids from the examples do not exist here)', () =>
    examplesPhase(validator.operations, { client: () => client, acceptStatus: (status) => status < 500 }));
  describe('ignored_auth', () => ignoredAuthPhase(validator.operations, { client: () => client }));
  describe('negative_data_rejection', () => negativeDataPhase(validator, { client: () => client }));

  describe('token endpoint', () => {
    it('issues tokens by GET with a query, by POST with a query and by POST with a form body', async () => {
      const basic = new ContractClient({
        validator,
        baseUrl: server.url,
        credentials: { basic: { username: credentials.clientId, password: credentials.clientSecret } },
      });
      const viaQuery = await expectCall(
        'createAccessToken',
        { query: { grant_type: 'client_credentials', scope: 'data user' } },
        200,
        basic,
      );
      const viaForm = await expectCall(
        'createAccessToken',
        {
          contentType: 'application/x-www-form-urlencoded',
          body: 'grant_type=client_credentials&scope=data+user',
        },
        200,
        basic,
      );
      for (const result of [viaQuery, viaForm]) {
        expect(result.headers.get('cache-control')).toContain('no-store');
        expect(result.json).toMatchObject({ token_type: 'bearer', expires_in: 3599 });
        expect(
          String((result.json as { scope: string }).scope)
            .split(' ')
            .sort(),
        ).toEqual(['data', 'user']);
      }
    });

    it('refuses a wrong secret with invalid_client and an unknown grant with unsupported_grant_type', async () => {
      const wrong = new ContractClient({
        validator,
        baseUrl: server.url,
        credentials: { basic: { username: credentials.clientId, password: 'not-the-secret' } },
      });
      const refused = await expectCall(
        'getAccessToken',
        { query: { grant_type: 'client_credentials' } },
        401,
        wrong,
      );
      expect(refused.json).toMatchObject({ error: 'invalid_client' });
      const badGrant = await expectCall('getAccessToken', { query: { grant_type: 'password' } }, 400, client);
      expect(badGrant.json).toMatchObject({
        error: expect.stringMatching(/unsupported_grant_type|invalid_request/),
      });
    });

    it('refuses an operation outside the token scope with 403 insufficient_scope', async () => {
      const refused = await expectCall('listUsers', {}, 403, dataOnly);
      expect(refused.json).toMatchObject({ error: 'insufficient_scope' });
      await expectCall('listDatasets', {}, 200, dataOnly);
    });
  });

  describe('users: create → read back → update → list → delete → deleted subset', () => {
    it('walks a user through its life', async () => {
      const body: Record<string, unknown> = {
        ...namedObjectExample(validator, 'UserCreateRequest'),
        email: `ada.${database}@example.com`,
      };
      const created = await expectCall('createUser', { query: { sendInvite: 'False' }, body }, 201);
      const id = idFromLocation(created);
      expect(created.json).toMatchObject({ id: Number(id), name: body.name, email: body.email });

      const read = await expectCall('getUser', { path: { id } }, 200);
      expect(read.json).toMatchObject({ id: Number(id), name: body.name, role: body.role });

      await expectCall('updateUser', { path: { id }, body: { title: 'Countess' } }, 200);
      const updated = await expectCall('getUser', { path: { id } }, 200);
      expect(updated.json).toMatchObject({ title: 'Countess', name: body.name, email: body.email });

      const page = await expectCall('listUsers', { query: { limit: 500, offset: 0 } }, 200);
      expect((page.json as Array<{ id: number }>).map((user) => user.id)).toContain(Number(id));
      const pastTheEnd = await expectCall('listUsers', { query: { limit: 500, offset: 100_000 } }, 200);
      expect(pastTheEnd.json).toEqual([]);

      await expectCall('getUser', { path: { id } }, 404, otherTenant);
      await expectCall('deleteUser', { path: { id } }, 404, otherTenant);

      await expectCall('deleteUser', { path: { id } }, 204);
      const deleted = await expectCall('getUser', { path: { id } }, 200);
      expect(deleted.json).toMatchObject({ id: Number(id), deleted: true });
      await expectCall('getUser', { path: { id: 987_654_321 } }, 404);
    });
  });

  describe('groups and datasets', () => {
    it('walks a group and its members', async () => {
      const user = await expectCall(
        'createUser',
        {
          body: {
            ...namedObjectExample(validator, 'UserCreateRequestMinimal'),
            email: `member.${database}@example.com`,
          },
        },
        201,
      );
      const userId = idFromLocation(user);
      const group = await expectCall(
        'createGroup',
        {
          body: {
            ...namedObjectExample(validator, 'GroupCreateRequest'),
            name: `Contract group ${database}`,
          },
        },
        201,
      );
      const id = idFromLocation(group);
      await expectCall('getGroup', { path: { id } }, 200);
      await expectCall('addGroupUser', { path: { id, userId } }, 204);
      const members = await expectCall('listGroupUsers', { path: { id } }, 200);
      expect(members.json).toContain(Number(userId));
      await expectCall('removeGroupUser', { path: { id, userId } }, 204);
      await expectCall('getGroup', { path: { id } }, 404, otherTenant);
      await expectCall('deleteGroup', { path: { id } }, 204);
      expect((await expectCall('getGroup', { path: { id } }, 200)).json).toMatchObject({ deleted: true });
    });

    it('stores dataset CSV data and returns it', async () => {
      const created = await expectCall(
        'createDataset',
        { body: namedObjectExample(validator, 'DatasetCreateRequest') },
        201,
      );
      const id = idFromLocation(created);
      const csv = String(namedExample(validator, 'DatasetCsvImport'));
      await expectCall('importDatasetData', { path: { id }, contentType: 'text/csv', body: csv }, 204);
      const exported = await expectCall(
        'exportDatasetData',
        { path: { id }, query: { includeHeader: 'true' } },
        200,
      );
      // The import has no header line; the export with includeHeader=true starts with the column names.
      expect(exported.text.trim().split(/\r?\n/).slice(1)).toEqual(csv.trim().split(/\r?\n/));
      await expectCall('getDataset', { path: { id } }, 404, otherTenant);
      await expectCall('deleteDataset', { path: { id } }, 204);
      expect((await expectCall('getDataset', { path: { id } }, 200)).json).toMatchObject({ deleted: true });
    });
  });

  describe('chat: integrations, subscriptions, events delivered as the spec describes them, callbacks', () => {
    it('delivers each subscribed event to a real HTTPS receiver and accepts the post-back', async () => {
      const channel = await expectCall(
        'createChannel',
        { body: namedObjectExample(validator, 'ChatChannelCreateRequest') },
        201,
      );
      const channelId = (channel.json as { id: string }).id;
      const integration = await expectCall(
        'createIntegration',
        { body: { ...namedObjectExample(validator, 'IntegrationCreateRequest'), channelIds: [channelId] } },
        200,
      );
      const integrationId = (integration.json as { id: string; name: string }).id;
      const integrationName = (integration.json as { name: string }).name;

      const subscribe = async (example: string, path: string) =>
        expectCall(
          'createSubscription',
          {
            path: { integrationId },
            body: { ...namedObjectExample(validator, example), url: `${receiver.url}/${path}` },
          },
          200,
        );
      for (const eventType of [
        'MESSAGE_POSTED',
        'THREAD_CREATED',
        'USERS_JOINED_CHANNEL',
        'USERS_LEFT_CHANNEL',
      ]) {
        const url = `${receiver.url}/${database}/${eventType}`;
        const subscription = await expectCall(
          'createSubscription',
          {
            path: { integrationId },
            body: { ...namedObjectExample(validator, 'SubscriptionCreateRequest'), eventType, url },
          },
          200,
        );
        expect(subscription.json).toMatchObject({ eventType, url });
      }
      const slash = await subscribe('SlashCommandSubscriptionCreateRequest', `${database}/SLASH_COMMAND`);
      const slashCommand = (slash.json as { slashCommand: string }).slashCommand;
      const listed = await expectCall('listSubscriptions', { path: { integrationId } }, 200);
      expect((listed.json as { subscriptions: unknown[] }).subscriptions).toHaveLength(5);
      expect((await expectCall('listIntegrations', {}, 200)).json).toMatchObject({
        integrations: expect.arrayContaining([expect.objectContaining({ id: integrationId })]),
      });
      await expectCall('getIntegration', { path: { integrationId } }, 404, otherTenant);

      const member = await expectCall(
        'createUser',
        {
          body: {
            ...namedObjectExample(validator, 'UserCreateRequestMinimal'),
            email: `chat.${database}@example.com`,
          },
        },
        201,
      );
      const memberId = Number(idFromLocation(member));

      const text = `hello from the contract suite on ${database}`;
      await expectCall('postMessage', { path: { channelId }, body: { text } }, 201);
      await expectCall(
        'createThread',
        { path: { channelId }, body: namedObjectExample(validator, 'ChatThreadCreateRequest') },
        201,
      );
      await expectCall('joinChannel', { path: { channelId }, body: { userIds: [memberId] } }, 200);
      await expectCall('leaveChannel', { path: { channelId, userId: memberId } }, 204);
      await expectCall(
        'invokeSlashCommand',
        { path: { channelId }, body: { commandLine: `${slashCommand} now` } },
        202,
      );

      const byPath = (eventType: string) => (delivery: { path: string }) =>
        delivery.path === `/${database}/${eventType}`;
      const posted = await receiver.waitFor(byPath('MESSAGE_POSTED'));
      for (const eventType of [
        'THREAD_CREATED',
        'USERS_JOINED_CHANNEL',
        'USERS_LEFT_CHANNEL',
        'SLASH_COMMAND',
      ]) {
        await receiver.waitFor(byPath(eventType));
      }
      const ours = receiver.received.filter((delivery) => delivery.path.startsWith(`/${database}/`));
      for (const delivery of ours) {
        expect(delivery.problems, delivery.body).toEqual([]);
        expect(delivery.webhook?.path).toBe(delivery.path.split('/').pop());
      }
      expect(posted.json).toMatchObject({
        event: { type: 'MESSAGE_POSTED' },
        message: { text },
        channel: { id: channelId },
      });

      // The post-back: the callback URL and token of the payload, within the hour.
      const callback = (posted.json as { callback: { url: string; headers: Record<string, string> } })
        .callback;
      expect(callback.url).toBe(`${server.url}/v1/chat/bots/message/${encodeURIComponent(channelId)}`);
      const bot = new ContractClient({
        validator,
        baseUrl: server.url,
        credentials: { apiKeys: callback.headers },
      });
      await expectCall(
        'postCallbackMessage',
        { path: { channelId }, body: namedObjectExample(validator, 'CallbackMessageRequest') },
        201,
        bot,
      );
      const wrongBot = new ContractClient({
        validator,
        baseUrl: server.url,
        credentials: { apiKeys: { 'x-chat-bot-token': 'f'.repeat(64) } },
      });
      await expectCall(
        'postCallbackMessage',
        { path: { channelId }, body: namedObjectExample(validator, 'CallbackMessageRequest') },
        401,
        wrongBot,
      );
      const messages = await expectCall('listMessages', { path: { channelId } }, 200);
      expect(JSON.stringify(messages.json)).toContain(integrationName);

      await expectCall('getChannel', { path: { channelId } }, 200);
      await expectCall('listChannels', {}, 200);
      await expectCall(
        'deleteSubscription',
        { path: { integrationId, subscriptionId: (slash.json as { id: string }).id } },
        204,
      );
      await expectCall('deleteIntegration', { path: { integrationId } }, 204);
      await expectCall('getIntegration', { path: { integrationId } }, 404);
    }, 60_000);
  });

  it('called every operation of the spec at least once', () => {
    expect(client.uncalled()).toEqual([]);
  });
});
