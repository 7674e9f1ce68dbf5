#!/usr/bin/env node
// `platform-api-mock [platform|site ...]` starts the Prism mocks (both by default);
// `platform-api-mock trigger <EVENT_TYPE|all ...> --to <url>` sends chat events to a receiver.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ChatEvents } from './events.js';
import { type MockedApi, type MockServer, mockedApis, startMock } from './index.js';
import { trigger } from './trigger.js';

const USAGE = `Usage:
  platform-api-mock [platform|site ...] [options] start the mocks (both by default)
  platform-api-mock trigger <EVENT_TYPE|all ...> --to <url> [options]
  platform-api-mock trigger --list               the event types

mock options:
  --stateless             Prism's examples only: no memory, any credentials (the mocks keep state by default)
  --max-items <n>         items a tenant keeps at most, the oldest dropped first (default 10000)
  --max-tenants <n>       tenants kept at most, the least recently active dropped first (default 1000)
  --webhook-ca <file>     trust this CA (PEM) when delivering events to a receiver (its self-signed certificate)

trigger options:
  --to <url>              the receiver (https)
  --secret <whsec_…>      signing secret (default: a new one, printed)
  --header 'Name: value'  a header configured on the integration (repeatable)
  --callback-host <host>  where the callback endpoint listens (default 127.0.0.1)
  --callback-port <port>  its port (default: a free one)
  --callback-url <url>    the callback URL's base as the receiver sees it (a tunnel)
  --wait <seconds>        how long to wait for a post-back (default 5; 0: do not wait)
  --expect-post-back      fail when none comes (a post-back is optional: any 2xx is delivered)
  --timeout <seconds>     deadline of the delivery (default 10)
  --ca <file>             trust this CA certificate (PEM) for the receiver
  --insecure              accept any certificate (a self-signed receiver)`;

const [command, ...rest] = process.argv.slice(2);
// --help (-h) anywhere, after any subcommand: the usage, never a start or a delivery.
const wantsHelp = (args: string[]) => {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
};
if (command === 'help' || wantsHelp(process.argv.slice(2))) console.log(USAGE);
else if (command === 'trigger') process.exitCode = await runTrigger(rest);
else await runMocks(process.argv.slice(2));

async function runTrigger(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseTriggerArgs>;
  try {
    parsed = parseTriggerArgs(args);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const events = new ChatEvents();
  if (values.list) {
    console.log(events.types.join('\n'));
    return 0;
  }
  const types = positionals.includes('all') ? events.types : positionals;
  const unknown = types.filter((type) => !events.events.has(type));
  if (types.length === 0 || unknown.length > 0 || !values.to) {
    const problem =
      unknown.length > 0
        ? `Unknown event type ${unknown.join(', ')}. Known: ${events.types.join(', ')}`
        : types.length === 0
          ? 'Name an event type (or all).'
          : '--to is required.';
    console.error(`${problem}\n\n${USAGE}`);
    return 2;
  }
  const number = (name: string, value: string | undefined, scale: number) => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) {
      console.error(`--${name} takes a number, not "${value}"`);
      process.exit(2);
    }
    return parsed * scale;
  };
  const waitMs = number('wait', values.wait, 1000);
  const timeoutMs = number('timeout', values.timeout, 1000);
  const callbackPort = number('callback-port', values['callback-port'], 1);
  const secret = values.secret;
  if (secret !== undefined && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) {
    console.error('--secret must be a Standard Webhooks secret: whsec_ followed by base64');
    return 2;
  }
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) {
      console.error(`--header takes 'Name: value', not "${header}"`);
      return 2;
    }
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  let failures = 0;
  for (const eventType of types) {
    const result = await trigger({
      eventType,
      to: values.to,
      ...(secret !== undefined ? { secret } : {}),
      headers,
      ...(values['callback-host'] !== undefined ? { callbackHost: values['callback-host'] } : {}),
      ...(callbackPort !== undefined ? { callbackPort } : {}),
      ...(values['callback-url'] !== undefined ? { callbackBaseUrl: values['callback-url'] } : {}),
      ...(waitMs !== undefined ? { waitMs } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(values.ca !== undefined ? { ca: readFileSync(values.ca, 'utf8') } : {}),
      ...(values.insecure ? { insecure: true } : {}),
      ...(values['expect-post-back'] ? { expectPostBack: true } : {}),
      events,
      log: (line) => console.log(`[${eventType}] ${line}`),
    });
    console.log(`[${eventType}] ${result.ok ? 'ok' : 'FAILED'}`);
    if (!result.ok) failures += 1;
  }
  return failures === 0 ? 0 : 1;
}

function parseTriggerArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      to: { type: 'string' },
      secret: { type: 'string' },
      header: { type: 'string', multiple: true },
      'callback-host': { type: 'string' },
      'callback-port': { type: 'string' },
      'callback-url': { type: 'string' },
      wait: { type: 'string' },
      timeout: { type: 'string' },
      ca: { type: 'string' },
      insecure: { type: 'boolean' },
      'expect-post-back': { type: 'boolean' },
      list: { type: 'boolean' },
    },
  });
}

async function runMocks(args: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseMockArgs>;
  try {
    parsed = parseMockArgs(args);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  const apis = (positionals.length > 0 ? positionals : Object.keys(mockedApis)) as MockedApi[];
  for (const api of apis) {
    if (!(api in mockedApis)) {
      console.error(`Unknown API "${api}". Known: ${Object.keys(mockedApis).join(', ')}\n\n${USAGE}`);
      process.exit(2);
    }
  }
  const count = (name: 'max-items' | 'max-tenants') => {
    const text = values[name];
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      console.error(`--${name} takes a whole number of at least 1, not "${text}"\n\n${USAGE}`);
      process.exit(2);
    }
    return value;
  };
  const maxItems = count('max-items');
  const maxTenants = count('max-tenants');

  // The events the mocks deliver are worth a line; each request and Prism's own output are not.
  const eventLog = {
    write: (chunk: string | Uint8Array) => {
      for (const line of chunk.toString().split('\n'))
        if (line.startsWith('mock: event ')) process.stdout.write(`${line}\n`);
      return true;
    },
  } as NodeJS.WritableStream;

  const servers: MockServer[] = [];
  for (const api of apis) {
    const port = Number(process.env[`MOCK_${api.toUpperCase()}_PORT`] ?? mockedApis[api].defaultPort);
    const server = await startMock(api, {
      port,
      ...(values.stateless ? { stateless: true } : {}),
      ...(maxItems !== undefined ? { maxItems } : {}),
      ...(maxTenants !== undefined ? { maxTenants } : {}),
      ...(values['webhook-ca'] !== undefined
        ? { webhookCa: readFileSync(values['webhook-ca'], 'utf8') }
        : {}),
      log: eventLog,
    });
    servers.push(server);
    console.log(
      `${api} mock (${values.stateless ? "Prism's examples, no memory" : 'with memory'}): ${server.url}`,
    );
  }

  const shutdown = async () => {
    await Promise.all(servers.map((server) => server.close()));
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

function parseMockArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      stateless: { type: 'boolean' },
      'max-items': { type: 'string' },
      'max-tenants': { type: 'string' },
      'webhook-ca': { type: 'string' },
    },
  });
}
