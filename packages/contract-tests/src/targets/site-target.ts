// `contract-tests site`: the site bundle as the given WordPress version has it, a client with an
// application password, requests generated only to read (the site is someone else's server), and the
// WordPress scenarios as the stateful phase — they create, revise, trash and delete what they use. A mock
// of this repository, told by its `Server` header, gets the scenarios it can be held to. The scenarios
// (./site/) run in process on the run's Session, so their requests are counted with the run's and each
// scenario is one site_scenario result; the WordPress version decides what they expect it to serve.
import { matching, option, text } from '@platform-api/cli-options';
import { loadBundle, type Operation, SpecValidator } from '@platform-api/validator';
import { ContractClient } from '../client.js';
import type { CheckName } from '../run/checks.js';
import { describeError } from '../run/runner.js';
import { specForVersion } from '../versions.js';
import type { ScenarioTargetKind } from './site/harness.js';
import { scenarioPhase } from './site/phase.js';
import { feedVersion } from './site/wordpress-rest.js';
import { type Target, TargetUnusable } from './target.js';

/**
 * Checks that do not apply to WordPress as it is: it answers a method a route lacks with 404
 * rest_no_route (not 405), and refuses schema-valid combinations its schema cannot express
 * (orderby=relevance without search) with 400.
 */
const WORDPRESS_INAPPLICABLE = new Set<CheckName>([
  'unsupported_method',
  'allow_header_conformance',
  'positive_data_acceptance',
]);

/** The site's credentials, shared with `replay`. */
export const SITE_CREDENTIALS = {
  user: option({ flag: 'user', parser: text(), help: 'a WordPress administrator' }),
  appPassword: option({
    flag: 'app-password',
    parser: text(),
    help: "the administrator's application password",
    secret: true,
  }),
};

const SITE_OPTIONS = {
  ...SITE_CREDENTIALS,
  wpVersion: option({
    flag: 'wp-version',
    parser: matching(/^\d+(\.\d+)*$/, 'a version like 7.1.4'),
    help: "the site's WordPress version (default: the generator of its feed)",
  }),
};

export const siteTarget: Target<typeof SITE_OPTIONS> = {
  api: 'site',
  options: SITE_OPTIONS,
  synopsis: '  contract-tests site --base-url URL --user USER --app-password PASSWORD [--wp-version 7.1.4]',
  required: [SITE_OPTIONS.user, SITE_OPTIONS.appPassword],

  async connect(options, { baseUrl, throttle, log }) {
    const { wpVersion, user = '', appPassword = '' } = options;
    const siteUrl = baseUrl.replace(/\/wp-json$/, '');
    const bundle = loadBundle('site');
    const clientOf = (validator: SpecValidator) =>
      new ContractClient({
        validator,
        baseUrl: `${siteUrl}/wp-json`,
        credentials: { basic: { username: user, password: appPassword } },
        throttle,
      });
    const whole = clientOf(new SpecValidator(bundle));
    // As the platform's token request does, one request first tells a site that is not there.
    const root = await whole
      .send({ method: 'GET', url: `${siteUrl}/wp-json/`, headers: {} })
      .catch((error: unknown) => {
        throw new TargetUnusable(`${siteUrl} does not answer (${describeError(error)})`);
      });
    const kind = siteKindOf(root.headers.get('server'));
    if (kind !== 'wordpress')
      log(
        kind === 'mock'
          ? "the site is this repository's mock with memory: the scenarios that need WordPress are skipped"
          : "the site is this repository's stateless mock: each scenario step asks it for its status (Prefer: code=N)",
      );
    // Generated requests use only what the site's version knows: an argument it lacks, it ignores, and a
    // request that breaks that argument's schema would be served. Without --wp-version, the feed tells.
    const version = wpVersion ?? (await feedVersion((request) => whole.send(request), siteUrl));
    if (version === undefined)
      log(
        'the WordPress version is unknown (no --wp-version, no generator in the feed): the whole spec applies',
      );
    const client = version ? clientOf(new SpecValidator(specForVersion(bundle, version))) : whole;
    const validator = client.validator;
    return {
      validator,
      client,
      // Generated requests only read: the site is someone else's server. What writes (and cleans up) is
      // the stateful phase's scenarios.
      include: (operation: Operation) => operation.method === 'get',
      inapplicableChecks: WORDPRESS_INAPPLICABLE,
      phaseRunners: {
        stateful: scenarioPhase({
          name: MOCK_NAMES[kind] ?? `WordPress ${version ?? '(version unknown)'}`,
          kind,
          baseUrl: `${siteUrl}/wp-json`,
          credentials: { basic: { username: user, password: appPassword } },
          version,
        }),
      },
    };
  },
};

/** How the scenarios' summary names a mock of the site spec (a WordPress is named by its version). */
const MOCK_NAMES: Record<ScenarioTargetKind, string | undefined> = {
  wordpress: undefined,
  mock: 'the site mock (with memory)',
  'stateless-mock': 'the stateless site mock',
};

/**
 * What a site's answer says it is: the mocks of this repository name themselves in `Server`
 * (`platform-api-mock (memory)`, `platform-api-mock (stateless)`); anything else is taken for WordPress.
 */
export function siteKindOf(server: string | null): ScenarioTargetKind {
  const mock = /^platform-api-mock \((memory|stateless)\)/.exec(server ?? '');
  if (!mock) return 'wordpress';
  return mock[1] === 'memory' ? 'mock' : 'stateless-mock';
}
