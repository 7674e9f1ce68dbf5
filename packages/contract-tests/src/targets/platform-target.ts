// `contract-tests platform`: the platform API's bundle (public, or with --include-internal the internal
// operations too), clients holding tokens from the spec's own token operation — one per tenant — and the
// webhooks phase when the run can receive events.
import { readFileSync } from 'node:fs';
import { loadBundle, SpecValidator } from '@platform-api/validator';
import { platformClient, webhooksPhase } from './platform.js';
import { stringFlag, type Target } from './target.js';

export const platformTarget: Target = {
  api: 'platform',
  options: {
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    scopes: { type: 'string', default: 'user data chat' },
    'other-client-id': { type: 'string' },
    'other-client-secret': { type: 'string' },
    'include-internal': { type: 'boolean', default: false },
    'webhooks-cert': { type: 'string' },
    'webhooks-key': { type: 'string' },
    'webhooks-host': { type: 'string' },
  },
  usage: `  contract-tests platform --base-url URL --client-id ID --client-secret SECRET [--scopes "user data chat"]
      [--other-client-id ID --other-client-secret SECRET] [--include-internal]
      [--webhooks-cert FILE --webhooks-key FILE [--webhooks-host HOST]]`,
  required: ['base-url', 'client-id', 'client-secret'],

  async connect(flags, { baseUrl, throttle, phases, log }) {
    const includeInternal = flags['include-internal'] === true;
    const validator = new SpecValidator(loadBundle(includeInternal ? 'platform' : 'platform-public'));
    const scopes = stringFlag(flags, 'scopes')!;
    const clientFor = (clientId: string, clientSecret: string) =>
      platformClient(validator, baseUrl, { clientId, clientSecret }, scopes, throttle);
    const client = await clientFor(stringFlag(flags, 'client-id')!, stringFlag(flags, 'client-secret')!);
    const otherId = stringFlag(flags, 'other-client-id');
    const otherSecret = stringFlag(flags, 'other-client-secret');
    const otherTenant = otherId && otherSecret ? await clientFor(otherId, otherSecret) : undefined;

    const cert = stringFlag(flags, 'webhooks-cert');
    const key = stringFlag(flags, 'webhooks-key');
    if (cert && key && includeInternal) {
      const webhooks = webhooksPhase({
        tls: { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') },
        host: stringFlag(flags, 'webhooks-host'),
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
