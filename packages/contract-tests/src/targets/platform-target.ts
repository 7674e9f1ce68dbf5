// `contract-tests platform`: the platform API's bundle (public, or with --include-internal the internal
// operations too), clients holding tokens from the spec's own token operation — one per tenant — and the
// webhooks phase when the run can receive events.
import { readFileSync } from 'node:fs';
import { option, path, switchFlag, text } from '@platform-api/cli-options';
import { loadBundle, SpecValidator } from '@platform-api/validator';
import { platformClient, webhooksPhase } from './platform.js';
import type { Target } from './target.js';

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
  includeInternal: option({
    flag: 'include-internal',
    parser: switchFlag(),
    help: 'the internal operations too (the chat operations cause the webhooks)',
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
      [--other-client-id ID --other-client-secret SECRET] [--include-internal]
      [--webhooks-cert FILE --webhooks-key FILE [--webhooks-host HOST]]`,
  required: [PLATFORM_OPTIONS.clientId, PLATFORM_OPTIONS.clientSecret],

  async connect(options, { baseUrl, throttle, phases, log }) {
    const { includeInternal, scopes, otherClientId, otherClientSecret } = options;
    const validator = new SpecValidator(loadBundle(includeInternal ? 'platform' : 'platform-public'));
    const clientFor = (clientId: string, clientSecret: string) =>
      platformClient(validator, baseUrl, { clientId, clientSecret }, scopes, throttle);
    const client = await clientFor(options.clientId ?? '', options.clientSecret ?? '');
    const otherTenant =
      otherClientId && otherClientSecret ? await clientFor(otherClientId, otherClientSecret) : undefined;

    const { webhooksCert: cert, webhooksKey: key } = options;
    if (cert && key && includeInternal) {
      const webhooks = webhooksPhase({
        tls: { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') },
        host: options.webhooksHost,
      });
      return { validator, client, otherTenant, phaseRunners: { webhooks } };
    }
    if (!phases || phases.includes('webhooks'))
      log(
        'webhooks phase not run: it needs --include-internal (the chat operations cause the events) and --webhooks-cert/--webhooks-key (a certificate the server trusts)',
      );
    return { validator, client, otherTenant };
  },
};
