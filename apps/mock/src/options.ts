// The CLI's options, each declared once (flag, variable, parser, default, help): the command line is read,
// `--help` written and the README's option tables checked off these declarations.
import {
  integer,
  matching,
  option,
  optionsHelp,
  pemCertificates,
  repeatable,
  seconds,
  switchFlag,
  text,
  url,
} from '@platform-api/cli-options';
import { CALLBACK_HOST } from './callback-server.js';
import { DEFAULT_TIMEOUT_MS } from './delivery.js';
import { mockedApis } from './index.js';
import { DEFAULT_MAX_ITEMS, DEFAULT_MAX_TENANTS } from './state/store.js';
import { DEFAULT_WAIT_MS } from './trigger.js';

const count = () => integer(1, Number.MAX_SAFE_INTEGER);
const port = () => integer(0, 65_535);

export const MOCK_OPTIONS = {
  stateless: option({
    flag: 'stateless',
    help: "Prism's examples only: no memory, any credentials",
    parser: switchFlag(),
  }),
  maxItems: option({
    flag: 'max-items',
    help: 'items a tenant keeps at most; beyond, the oldest go first',
    parser: count(),
    default: String(DEFAULT_MAX_ITEMS),
  }),
  maxTenants: option({
    flag: 'max-tenants',
    help: 'tenants kept at most; beyond, the least recently active go first',
    parser: count(),
    default: String(DEFAULT_MAX_TENANTS),
  }),
  webhookCa: option({
    flag: 'webhook-ca',
    help: "a CA certificate (PEM) the event deliveries trust besides the system's (a receiver's self-signed one)",
    parser: pemCertificates(),
  }),
  platformPort: option({
    flag: 'platform-port',
    env: 'MOCK_PLATFORM_PORT',
    help: "the platform mock's port (0: a free one)",
    parser: port(),
    default: String(mockedApis.platform.defaultPort),
  }),
  sitePort: option({
    flag: 'site-port',
    env: 'MOCK_SITE_PORT',
    help: "the site mock's port (0: a free one)",
    parser: port(),
    default: String(mockedApis.site.defaultPort),
  }),
};

export const TRIGGER_OPTIONS = {
  to: option({
    flag: 'to',
    help: 'the receiver (required); http:// is sent too, with a warning (the service delivers to https:// only)',
    parser: url(['https:', 'http:']),
  }),
  secret: option({
    flag: 'secret',
    help: 'the signing secret your receiver verifies with (whsec_…); default: a new one, printed first',
    parser: matching(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'a Standard Webhooks secret: whsec_ followed by base64'),
    secret: true,
  }),
  header: option({
    flag: 'header',
    help: "a header configured on the integration ('Name: value'), e.g. the Authorization your receiver checks",
    parser: repeatable(
      matching(/^[^:]+:/, "'Name: value'").map((given) => {
        const colon = given.indexOf(':');
        return [given.slice(0, colon).trim(), given.slice(colon + 1).trim()] as const;
      }),
    ),
  }),
  wait: option({
    flag: 'wait',
    help: 'how long to wait for a post-back after the 2xx, in seconds; 0: do not wait or check it',
    parser: seconds(),
    default: String(DEFAULT_WAIT_MS / 1000),
  }),
  expectPostBack: option({
    flag: 'expect-post-back',
    help: 'fail when no post-back comes within --wait (a receiver that should answer every event)',
    parser: switchFlag(),
  }),
  timeout: option({
    flag: 'timeout',
    help: "the delivery's deadline, in seconds (the spec's)",
    parser: seconds(),
    default: String(DEFAULT_TIMEOUT_MS / 1000),
  }),
  callbackHost: option({
    flag: 'callback-host',
    help: 'where the callback endpoint listens',
    parser: text(),
    default: CALLBACK_HOST,
  }),
  callbackPort: option({
    flag: 'callback-port',
    help: "the callback endpoint's port (0: a free one)",
    parser: port(),
    default: '0',
  }),
  callbackUrl: option({
    flag: 'callback-url',
    help: "the callback URL's base as your receiver must reach it (a tunnel, a container's host name)",
    parser: url(['http:', 'https:']),
  }),
  ca: option({
    flag: 'ca',
    help: 'trust this CA (PEM) for an https receiver, e.g. its self-signed certificate',
    parser: pemCertificates(),
  }),
  insecure: option({
    flag: 'insecure',
    help: 'accept any receiver certificate',
    parser: switchFlag(),
  }),
  list: option({
    flag: 'list',
    help: "print the event types (the bundle's webhooks), one a line",
    parser: switchFlag(),
  }),
};

export const USAGE = `Usage:
  platform-api-mock [platform|site ...] [options]      start the mocks (both by default)
  platform-api-mock trigger <EVENT_TYPE|all ...> --to <url> [options]
  platform-api-mock trigger --list                     the event types

mock options:
${optionsHelp(MOCK_OPTIONS)}

trigger options:
${optionsHelp(TRIGGER_OPTIONS)}`;
