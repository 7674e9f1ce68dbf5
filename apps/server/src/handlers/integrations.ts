import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Schemas } from '../api-types.js';
import { ChannelAccess, findAccessibleChannel, findChannel } from '../chat/access.js';
import type { Database, IntegrationsTable, SubscriptionsTable } from '../db/schema.js';
import { ApiProblem, badRequest } from '../errors.js';
import { messageById } from './chat.js';
import { foundOr404, iso, notFoundProblem } from './common.js';
import { type HandlerMap, requireAuth } from './types.js';

/*
 * Chat integrations and their event subscriptions (sections 2.3, 2.4, 4.4, 7), and the callback post-back.
 * The iff-rules (channelIds ⇔ CHANNEL_LIST, slashCommand ⇔ SLASH_COMMAND, https only) are enforced by the
 * spec's schemas before these handlers run; here: channel existence, the SSRF check and tenancy.
 */

type IntegrationRow = Selectable<IntegrationsTable>;

function integrationBody(
  row: IntegrationRow,
  options: { signingSecret?: string } = {},
): Schemas['Integration'] {
  const body: Schemas['Integration'] = {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    scope: row.scope as Schemas['IntegrationScope'],
    headers: JSON.parse(row.headers),
    signDeliveries: row.signing_secret !== null,
  };
  if (row.description !== null) body.description = row.description;
  if (row.channel_ids !== null) body.channelIds = JSON.parse(row.channel_ids);
  if (options.signingSecret) body.signingSecret = options.signingSecret;
  return body;
}

function subscriptionBody(row: Selectable<SubscriptionsTable>, now: number): Schemas['Subscription'] {
  const body: Schemas['Subscription'] = {
    id: row.id,
    eventType: row.event_type as Schemas['ChatEventType'],
    url: row.url,
    circuitBreaker: circuitBreakerBody(row, now),
  };
  if (row.slash_command !== null) body.slashCommand = row.slash_command;
  return body;
}

/** The delivery breaker's columns (docs/delivery.md): no time is closed, a future one open, a past one half-open. */
function circuitBreakerBody(
  row: Pick<Selectable<SubscriptionsTable>, 'breaker_failures' | 'breaker_open_until'>,
  now: number,
): Schemas['SubscriptionCircuitBreaker'] {
  const consecutiveFailures = row.breaker_failures;
  const openUntil = row.breaker_open_until;
  if (openUntil === null) return { state: 'CLOSED', consecutiveFailures };
  return { state: openUntil > now ? 'OPEN' : 'HALF_OPEN', consecutiveFailures, openUntil: iso(openUntil) };
}

async function findIntegration(db: Kysely<Database>, instanceId: number, id: string) {
  return db
    .selectFrom('integrations')
    .selectAll()
    .where('id', '=', id)
    .where('instance_id', '=', instanceId)
    .executeTakeFirst();
}

function integrationOr404(db: Kysely<Database>, instanceId: number, id: string) {
  return foundOr404(findIntegration(db, instanceId, id), 'integration', id);
}

/** Stops the pending deliveries of a removed subscription or integration: it no longer receives events. */
async function cancelPendingDeliveries(
  db: Kysely<Database>,
  column: 'subscription_id' | 'integration_id',
  id: string,
) {
  await db
    .updateTable('event_deliveries')
    .set({
      status: 'failed',
      last_error: column === 'subscription_id' ? 'subscription deleted' : 'integration deleted',
    })
    .where(column, '=', id)
    .where('status', '=', 'pending')
    .execute();
}

export const integrationHandlers = {
  async createIntegration(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock } = ctx.services;
    const body = ctx.body;
    let channelIds: string[] | null = null;
    if (body.scope === 'CHANNEL_LIST') {
      channelIds = body.channelIds as string[];
      const problems = [];
      for (const [index, channelId] of channelIds.entries()) {
        if (!(await findAccessibleChannel(db, auth.instanceId, auth.userId, channelId))) {
          problems.push({ field: `body.channelIds.${index}`, message: `no channel with id ${channelId}` });
        }
      }
      // A reference to what does not exist is 404 (as JSON:API has it), not a malformed request.
      if (problems.length > 0) throw new ApiProblem(404, 'Unknown channels', { details: problems });
    }
    // Standard Webhooks secret: whsec_ + base64 of 24 random bytes; returned once, by this response.
    const signingSecret =
      body.signDeliveries === true ? `whsec_${randomBytes(24).toString('base64')}` : undefined;
    const row: IntegrationRow = {
      id: randomUUID(),
      instance_id: auth.instanceId,
      owner_id: auth.userId,
      name: body.name,
      description: body.description ?? null,
      scope: body.scope,
      channel_ids: channelIds ? JSON.stringify(channelIds) : null,
      headers: JSON.stringify(
        (body.headers ?? []).map((h: { name: string; value: string }) => ({ name: h.name, value: h.value })),
      ),
      signing_secret: signingSecret ?? null,
      created_at: clock.now(),
    };
    await db.insertInto('integrations').values(row).execute();
    return { body: integrationBody(row, signingSecret ? { signingSecret } : {}) };
  },

  async listIntegrations(ctx) {
    const auth = requireAuth(ctx);
    const { db } = ctx.services;
    const integrations = await db
      .selectFrom('integrations')
      .selectAll()
      .where('instance_id', '=', auth.instanceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const access = await ChannelAccess.load(
      db,
      auth.instanceId,
      [auth.userId, ...integrations.map((integration) => integration.owner_id)],
      'all',
    );
    const accessible = access.accessibleTo(auth.userId);
    // Those active on any channel the caller can access, and always the caller's own.
    const visible = integrations
      .filter(
        (integration) =>
          integration.owner_id === auth.userId ||
          accessible.some((channel) => access.isActiveOn(integration, channel)),
      )
      .map((integration) => integrationBody(integration));
    return { body: { integrations: visible } };
  },

  async getIntegration(ctx) {
    const auth = requireAuth(ctx);
    return {
      body: integrationBody(
        await integrationOr404(ctx.services.db, auth.instanceId, ctx.params.integrationId),
      ),
    };
  },

  async deleteIntegration(ctx) {
    const auth = requireAuth(ctx);
    const { db } = ctx.services;
    const row = await integrationOr404(db, auth.instanceId, ctx.params.integrationId);
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('subscriptions').where('integration_id', '=', row.id).execute();
      await trx.deleteFrom('callback_tokens').where('integration_id', '=', row.id).execute();
      await cancelPendingDeliveries(trx, 'integration_id', row.id);
      await trx.deleteFrom('integrations').where('id', '=', row.id).execute();
    });
    return {};
  },

  async createSubscription(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock, config, checkWebhookTarget } = ctx.services;
    const integration = await integrationOr404(db, auth.instanceId, ctx.params.integrationId);
    const url = ctx.body.url as string;
    const verdict = await checkWebhookTarget(url, config.delivery.allowList);
    if (!verdict.ok) {
      throw badRequest('The subscription url is not an allowed webhook target', [
        { field: 'body.url', message: verdict.reason },
      ]);
    }
    const row = {
      id: randomUUID(),
      instance_id: auth.instanceId,
      integration_id: integration.id,
      event_type: ctx.body.eventType as string,
      url,
      // Stored with its leading `/` (the response always carries it).
      slash_command:
        typeof ctx.body.slashCommand === 'string' ? `/${ctx.body.slashCommand.replace(/^\//, '')}` : null,
      disabled_at: null,
      breaker_failures: 0,
      breaker_open_until: null,
      created_at: clock.now(),
    };
    await db.insertInto('subscriptions').values(row).execute();
    return { body: subscriptionBody(row, row.created_at) };
  },

  async listSubscriptions(ctx) {
    const auth = requireAuth(ctx);
    const { db } = ctx.services;
    const integration = await integrationOr404(db, auth.instanceId, ctx.params.integrationId);
    // A subscription disabled by a 410 Gone from its receiver is gone, as the spec documents.
    const rows = await db
      .selectFrom('subscriptions')
      .selectAll()
      .where('integration_id', '=', integration.id)
      .where('disabled_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const now = ctx.services.clock.now();
    return { body: { subscriptions: rows.map((row) => subscriptionBody(row, now)) } };
  },

  async deleteSubscription(ctx) {
    const auth = requireAuth(ctx);
    const { db } = ctx.services;
    const integration = await integrationOr404(db, auth.instanceId, ctx.params.integrationId);
    const row = await foundOr404(
      db
        .selectFrom('subscriptions')
        .selectAll()
        .where('id', '=', ctx.params.subscriptionId)
        .where('integration_id', '=', integration.id)
        .where('disabled_at', 'is', null)
        .executeTakeFirst(),
      'subscription',
      ctx.params.subscriptionId,
    );
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('subscriptions').where('id', '=', row.id).execute();
      await cancelPendingDeliveries(trx, 'subscription_id', row.id);
    });
    return {};
  },

  async postCallbackMessage(ctx) {
    const callback = ctx.callback;
    if (!callback) throw new Error('postCallbackMessage reached without a callback context');
    const { db, messages, clock } = ctx.services;
    const integration = await findIntegration(db, callback.instanceId, callback.integrationId);
    const channel = await findChannel(db, callback.instanceId, callback.channelId);
    if (!integration || !channel) throw notFoundProblem('channel', callback.channelId);
    const message = {
      id: randomUUID(),
      instance_id: callback.instanceId,
      channel_id: channel.id,
      author_user_id: null,
      integration_id: integration.id,
      // The description: a message posted through the callback appears under the integration's name.
      author_name: integration.name,
      text: ctx.body.content.text as string,
    };
    await messages.post({ message, now: clock.now(), events: [] });
    return { body: await messageById(db, message.id) };
  },
} satisfies Partial<HandlerMap>;
