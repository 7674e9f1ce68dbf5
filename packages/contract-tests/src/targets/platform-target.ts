// `contract-tests platform`: the platform API's bundle (its internal operations too when the server serves
// them, see `--internal`), clients whose bearer token comes from the spec's own token operation — one per tenant —
// and the webhooks phase when the run can receive events: a real HTTPS receiver subscribed to every event
// the spec documents, the chat operations that cause them, and the post-back to each event's callback.
import { readFileSync } from 'node:fs';
import { oneOf, option, path, text } from '@platform-api/cli-options';
import { loadBundle, type Operation, SpecValidator } from '@platform-api/validator';
import { type CallOptions, ContractClient } from '../client.js';
import { namedObjectExample } from '../examples.js';
import { judgeCall } from '../run/phases/judge.js';
import type { PhaseRunner } from '../run/runner.js';
import type { RunScopes, Session } from '../run/session.js';
import { TargetThrottled, Throttle } from '../throttle.js';
import { startWebhookReceiver } from '../webhook-receiver.js';
import { type Target, TargetUnusable } from './target.js';

/** The platform's credentials, shared with `replay`, which obtains a token as a run does. */
export const PLATFORM_CREDENTIALS = {
  clientId: option({ flag: 'client-id', parser: text(), help: 'the OAuth client id of the run' }),
  clientSecret: option({ flag: 'client-secret', parser: text(), help: "the client's secret", secret: true }),
  scopes: option({
    flag: 'scopes',
    parser: text(),
    default: 'user data chat',
    help: 'the scopes the token is asked for',
  }),
  otherClientId: option({
    flag: 'other-client-id',
    parser: text(),
    help: 'a client of a second tenant (tenant_isolation)',
  }),
  otherClientSecret: option({
    flag: 'other-client-secret',
    parser: text(),
    help: "the second tenant's client secret",
    secret: true,
  }),
};

const PLATFORM_OPTIONS = {
  ...PLATFORM_CREDENTIALS,
  internal: option({
    flag: 'internal',
    parser: oneOf(['served', 'all', 'none']),
    default: 'served',
    help: 'the operations marked x-internal (the chat operations cause the webhooks): checked when the server serves them (one of its internal GETs without parameters answers as documented), always, or never',
  }),
  webhooksCert: option({
    flag: 'webhooks-cert',
    parser: path(),
    help: "the webhook receiver's certificate (PEM), one the server trusts",
  }),
  webhooksKey: option({ flag: 'webhooks-key', parser: path(), help: "the certificate's private key (PEM)" }),
  webhooksHost: option({
    flag: 'webhooks-host',
    parser: text(),
    help: 'the host name the server reaches the receiver at (default: its certificate names it)',
  }),
};

export const platformTarget: Target<typeof PLATFORM_OPTIONS> = {
  api: 'platform',
  options: PLATFORM_OPTIONS,
  synopsis: `  contract-tests platform --base-url URL --client-id ID --client-secret SECRET [--scopes "user data chat"]
      [--other-client-id ID --other-client-secret SECRET] [--internal served|all|none]
      [--webhooks-cert FILE --webhooks-key FILE [--webhooks-host HOST]]`,
  required: [PLATFORM_OPTIONS.clientId, PLATFORM_OPTIONS.clientSecret],

  async connect(options, { baseUrl, throttle, phases, log }) {
    const { scopes, otherClientId, otherClientSecret } = options;
    const credentials = { clientId: options.clientId ?? '', clientSecret: options.clientSecret ?? '' };
    let validator = new SpecValidator(loadBundle('platform'));
    let client = await platformClient(validator, baseUrl, credentials, scopes, throttle);
    const internal =
      options.internal === 'all' || (options.internal === 'served' && (await servesInternal(client)));
    if (options.internal === 'served')
      log(`internal operations: ${internal ? 'served, checked' : 'not served, left out'} (--internal)`);
    if (!internal) {
      validator = new SpecValidator(loadBundle('platform-public'));
      client = await platformClient(validator, baseUrl, credentials, scopes, throttle);
    }
    const clientFor = (clientId: string, clientSecret: string) =>
      platformClient(validator, baseUrl, { clientId, clientSecret }, scopes, throttle);
    const runScopes = platformScopes(validator, baseUrl, credentials, scopes, throttle);
    const otherTenant =
      otherClientId && otherClientSecret ? await clientFor(otherClientId, otherClientSecret) : undefined;

    const { webhooksCert: cert, webhooksKey: key } = options;
    if (cert && key && internal) {
      const webhooks = webhooksPhase({
        tls: { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') },
        host: options.webhooksHost,
      });
      return { validator, client, otherTenant, scopes: runScopes, phaseRunners: { webhooks } };
    }
    if (!phases || phases.includes('webhooks'))
      log(
        'webhooks phase not run: it needs the internal operations (the chat operations cause the events) and --webhooks-cert/--webhooks-key (a certificate the server trusts)',
      );
    return { validator, client, otherTenant, scopes: runScopes };
  },
};

/**
 * Whether the server serves the internal operations: one of the internal GETs that need no parameter
 * answers a documented 2xx that matches its schema (the public service answers them all 404). One is
 * enough: a served one that fails (a 500) is for the run to report, not a reason to leave them all out.
 */
async function servesInternal(client: ContractClient): Promise<boolean> {
  const probes = client.validator.operations.filter(
    (operation) =>
      operation.internal &&
      operation.kind !== 'webhook' &&
      operation.method === 'get' &&
      !operation.parameters.some((parameter) => parameter.node.required === true),
  );
  for (const operation of probes) {
    const answer = await client.call(operation.operationId).catch(() => undefined);
    if (answer && answer.status >= 200 && answer.status < 300 && answer.problems.length === 0) return true;
  }
  return false;
}

/** The run's scopes (`--scopes`), and tokens of the same client asked for fewer (scope_enforcement). */
export function platformScopes(
  validator: SpecValidator,
  baseUrl: string,
  credentials: ClientCredentials,
  scopes: string,
  throttle = new Throttle(),
): RunScopes {
  return {
    granted: scopes.split(/\s+/).filter((scope) => scope !== ''),
    clientFor: (fewer) => platformClient(validator, baseUrl, credentials, fewer.join(' '), throttle),
  };
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * A client of the platform API holding a token for `scopes`, or TargetUnusable with the server's words.
 * `throttle`: the run's, shared with its other clients (the target's rate limit counts them all).
 */
export async function platformClient(
  validator: SpecValidator,
  baseUrl: string,
  credentials: ClientCredentials,
  scopes: string,
  throttle = new Throttle(),
): Promise<ContractClient> {
  const basic = { username: credentials.clientId, password: credentials.clientSecret };
  const tokenClient = new ContractClient({ validator, baseUrl, credentials: { basic }, throttle });
  let token: Awaited<ReturnType<ContractClient['call']>>;
  try {
    token = await tokenClient.call('getAccessToken', {
      query: { grant_type: 'client_credentials', scope: scopes },
    });
  } catch (error) {
    if (error instanceof TargetThrottled) throw new TargetUnusable(error.message);
    const cause = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new TargetUnusable(`${baseUrl} does not answer (${cause})`);
  }
  const accessToken = (token.json as { access_token?: unknown } | undefined)?.access_token;
  if (token.status !== 200 || typeof accessToken !== 'string') {
    throw new TargetUnusable(
      `no access token for client ${credentials.clientId}: the token endpoint answered ${token.status} ${token.text.slice(0, 300)}`,
    );
  }
  return new ContractClient({ validator, baseUrl, credentials: { bearer: accessToken, basic }, throttle });
}

export interface WebhooksPhaseOptions {
  tls: { key: string; cert: string };
  /** The host the server reaches this machine at (default 127.0.0.1). */
  host?: string;
  /** How long to wait for the events, all of them, once caused (default a minute: a busy server may take its time). */
  timeoutMs?: number;
}

/**
 * Every event of the spec's `webhooks`, caused through the chat operations and received by a real HTTPS
 * receiver: each delivery must match exactly one documented webhook; the MESSAGE_POSTED callback must
 * accept a post-back with the payload's own token (callback_accepted).
 */
export function webhooksPhase(options: WebhooksPhaseOptions): PhaseRunner {
  return async (session: Session) => {
    const receiver = await startWebhookReceiver({
      validator: session.validator,
      tls: options.tls,
      host: options.host,
    });
    try {
      await causeEvents(session, receiver, options.timeoutMs ?? 60_000);
    } catch (error) {
      // An answer that failed a check is the run's finding, and the events are left unchecked, saying why.
      // A documented refusal (a missing scope, say) means the target cannot be used for this phase: it stops.
      if (!(error instanceof CallRefused && error.failedCheck)) throw error;
      const reason = `no event caused: ${error.message}`;
      for (const operation of session.validator.operations.filter(({ kind }) => kind === 'webhook')) {
        session.skip('request_headers_conformance', operation.operationId, reason);
        session.skip('request_body_conformance', operation.operationId, reason);
      }
      session.skip('callback_accepted', 'postCallbackMessage', reason);
    } finally {
      await receiver.close();
    }
  };
}

/** A call the webhooks phase cannot go on without was not answered 2xx. */
class CallRefused extends Error {
  constructor(
    message: string,
    /** Its answer failed a check (a 5xx, an undocumented status, a valid request refused as malformed). */
    readonly failedCheck: boolean,
  ) {
    super(message);
  }
}

async function causeEvents(session: Session, receiver: Receiver, timeoutMs: number): Promise<void> {
  const { validator } = session;
  // Each request is valid (the spec's examples, made unique to the run): its answer is judged like a
  // generated valid request's.
  const call = async (operationId: string, options: CallOptions) => {
    const result = await session.call(validator.operation(operationId), options);
    const held = judgeCall(session, result, { valid: true });
    if (result.status >= 300)
      throw new CallRefused(`${operationId} answered ${result.status}: ${result.text.slice(0, 300)}`, !held);
    return result;
  };
  const run = session.runId;
  const channel = await call('createChannel', {
    body: { ...namedObjectExample(validator, 'ChatChannelCreateRequest'), title: `contract ${run}` },
  });
  const channelId = (channel.json as { id: string }).id;
  const integration = await call('createIntegration', {
    body: {
      ...namedObjectExample(validator, 'IntegrationCreateRequest'),
      name: `contract-${run}`,
      channelIds: [channelId],
    },
  });
  const integrationId = (integration.json as { id: string }).id;
  const eventTypes = validator.operations
    .filter((operation) => operation.kind === 'webhook')
    .map((operation) => operation.path);
  let slashCommand: string | undefined;
  const subscriptionIds: string[] = [];
  for (const eventType of eventTypes) {
    const example =
      eventType === 'SLASH_COMMAND' ? 'SlashCommandSubscriptionCreateRequest' : 'SubscriptionCreateRequest';
    const subscription = await call('createSubscription', {
      path: { integrationId },
      body: {
        ...namedObjectExample(validator, example),
        eventType,
        url: `${receiver.url}/${run}/${eventType}`,
      },
    });
    subscriptionIds.push((subscription.json as { id: string }).id);
    if (eventType === 'SLASH_COMMAND')
      slashCommand = (subscription.json as { slashCommand: string }).slashCommand;
  }
  const member = await call('createUser', {
    body: { ...namedObjectExample(validator, 'UserCreateRequestMinimal'), email: `chat+${run}@example.com` },
  });
  const memberId = (member.json as { id: number }).id;
  await call('postMessage', { path: { channelId }, body: { text: `hello from contract run ${run}` } });
  await call('createThread', {
    path: { channelId },
    body: namedObjectExample(validator, 'ChatThreadCreateRequest'),
  });
  await call('joinChannel', { path: { channelId }, body: { userIds: [memberId] } });
  await call('leaveChannel', { path: { channelId, userId: memberId } });
  if (slashCommand)
    await call('invokeSlashCommand', { path: { channelId }, body: { commandLine: `${slashCommand} now` } });

  await checkDeliveries(session, receiver, { run, eventTypes, channelId }, timeoutMs);
  // Undone as a user would: each subscription, then the integration (the answers checked like any other).
  const deleteSubscription = validator.operation('deleteSubscription');
  for (const subscriptionId of subscriptionIds) {
    const deleted = await session.call(deleteSubscription, { path: { integrationId, subscriptionId } });
    session.checkResponse(deleted);
  }
  await call('deleteIntegration', { path: { integrationId } });
}

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

/**
 * Each event caused awaited at the receiver (one deadline for all: a server that delivers none costs the
 * run one timeout, not one an event), its delivery checked, and MESSAGE_POSTED's callback posted back to.
 */
async function checkDeliveries(
  session: Session,
  receiver: Receiver,
  caused: { run: string; eventTypes: string[]; channelId: string },
  timeoutMs: number,
): Promise<void> {
  const { run, channelId } = caused;
  const deadline = Date.now() + timeoutMs;
  for (const eventType of caused.eventTypes) {
    const operation = webhookOperation(session.validator, eventType);
    const request = { method: 'POST', url: `${receiver.url}/${run}/${eventType}`, headers: {} };
    let delivery: Awaited<ReturnType<Receiver['waitFor']>>;
    try {
      delivery = await receiver.waitFor(
        (candidate) => candidate.path === `/${run}/${eventType}`,
        Math.max(0, deadline - Date.now()),
      );
    } catch {
      session.fail(
        'request_body_conformance',
        operation,
        `no ${eventType} event arrived within ${timeoutMs} ms of the calls that cause the events`,
        { request },
      );
      continue;
    }
    if (delivery.problems.length === 0) session.pass('request_body_conformance', operation);
    for (const problem of delivery.problems) {
      session.fail(problem.check, operation, problem.message, {
        request: { ...request, headers: Object.fromEntries(delivery.headers), body: delivery.body },
      });
    }
    const callback = (delivery.json as { callback?: { headers: Record<string, string> } }).callback;
    if (eventType === 'MESSAGE_POSTED' && callback) await postBack(session, channelId, eventType, callback);
  }
}

/** callback_accepted: the server's own token, within its hour; a refusal is the server's fault, and the run goes on. */
async function postBack(
  session: Session,
  channelId: string,
  eventType: string,
  callback: { headers: Record<string, string> },
): Promise<void> {
  const { validator } = session;
  const bot = new ContractClient({
    validator,
    baseUrl: session.client.baseUrl,
    credentials: { apiKeys: callback.headers },
  });
  const operation = validator.operation('postCallbackMessage');
  const answer = await session.call(
    operation,
    { path: { channelId }, body: namedObjectExample(validator, 'CallbackMessageRequest') },
    bot,
  );
  session.checkResponse(answer, bot);
  if (answer.status >= 200 && answer.status < 300) session.pass('callback_accepted', operation);
  else
    session.fail(
      'callback_accepted',
      operation,
      `a post-back with the ${eventType} event's own callback token was answered ${answer.status}`,
      { request: answer.request, answer },
      bot,
    );
}

function webhookOperation(validator: SpecValidator, eventType: string): Operation {
  const found = validator.operations.find(
    (operation) => operation.kind === 'webhook' && operation.path === eventType,
  );
  if (!found) throw new Error(`the spec has no webhook ${eventType}`);
  return found;
}
