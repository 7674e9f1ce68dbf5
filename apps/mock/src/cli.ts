#!/usr/bin/env node
// `platform-api-mock [platform|site ...]` starts the Prism mocks (both by default);
// `platform-api-mock trigger <EVENT_TYPE|all ...> --to <url>` sends chat events to a receiver.
import {
  ConfigError,
  type ConfigOf,
  type Declaration,
  parseCommandLine,
  readOptions,
} from '@platform-api/cli-options';
import { ChatEvents } from './events.js';
import { type MockedApi, type MockServer, mockedApis, startMock } from './index.js';
import { MOCK_OPTIONS, TRIGGER_OPTIONS, USAGE } from './options.js';
import { trigger } from './trigger.js';

const [command, ...rest] = process.argv.slice(2);
if (command === 'help') console.log(USAGE);
else if (command === 'trigger') process.exitCode = await runTrigger(rest);
else await runMocks(process.argv.slice(2));

async function runTrigger(args: string[]): Promise<number> {
  const read = readCommandLine(args, TRIGGER_OPTIONS);
  if (read === 'help') return 0;
  if (!read) return 2;
  const { options, positionals } = read;
  const events = new ChatEvents();
  if (options.list) {
    console.log(events.types.join('\n'));
    return 0;
  }
  const types = positionals.includes('all') ? events.types : positionals;
  const unknown = types.filter((type) => !events.events.has(type));
  if (types.length === 0 || unknown.length > 0 || !options.to) {
    const problem =
      unknown.length > 0
        ? `Unknown event type ${unknown.join(', ')}. Known: ${events.types.join(', ')}`
        : types.length === 0
          ? 'Name an event type (or all).'
          : '--to is required.';
    console.error(`${problem}\n\n${USAGE}`);
    return 2;
  }
  let failures = 0;
  for (const eventType of types) {
    const result = await trigger({
      eventType,
      to: options.to,
      ...(options.secret !== undefined ? { secret: options.secret } : {}),
      headers: Object.fromEntries(options.header),
      callbackHost: options.callbackHost,
      callbackPort: options.callbackPort,
      ...(options.callbackUrl !== undefined ? { callbackBaseUrl: options.callbackUrl } : {}),
      waitMs: options.wait,
      timeoutMs: options.timeout,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options.insecure ? { insecure: true } : {}),
      ...(options.expectPostBack ? { expectPostBack: true } : {}),
      events,
      log: (line) => console.log(`[${eventType}] ${line}`),
    });
    console.log(`[${eventType}] ${result.ok ? 'ok' : 'FAILED'}`);
    if (!result.ok) failures += 1;
  }
  return failures === 0 ? 0 : 1;
}

/**
 * A command's options from its flags, else their variables, else their defaults; undefined (said why) on a
 * usage error; 'help' once the usage is printed (--help or -h after any subcommand: never a start or a
 * delivery).
 */
function readCommandLine<D extends Declaration>(
  args: string[],
  declaration: D,
): { options: ConfigOf<D>; positionals: string[] } | 'help' | undefined {
  const { flags, positionals, help } = parseCommandLine(args, declaration);
  if (help) {
    console.log(USAGE);
    return 'help';
  }
  try {
    return { options: readOptions(declaration, flags, process.env), positionals };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return undefined;
  }
}

async function runMocks(args: string[]): Promise<void> {
  const read = readCommandLine(args, MOCK_OPTIONS);
  if (read === 'help') return;
  if (!read) process.exit(2);
  const { options, positionals } = read;
  const apis = (positionals.length > 0 ? positionals : Object.keys(mockedApis)) as MockedApi[];
  for (const api of apis) {
    if (!(api in mockedApis)) {
      console.error(`Unknown API "${api}". Known: ${Object.keys(mockedApis).join(', ')}\n\n${USAGE}`);
      process.exit(2);
    }
  }
  const ports: Record<MockedApi, number> = { platform: options.platformPort, site: options.sitePort };

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
    const server = await startMock(api, {
      port: ports[api],
      stateless: options.stateless,
      maxItems: options.maxItems,
      maxTenants: options.maxTenants,
      ...(options.webhookCa !== undefined ? { webhookCa: options.webhookCa } : {}),
      log: eventLog,
    });
    servers.push(server);
    console.log(
      `${api} mock (${options.stateless ? "Prism's examples, no memory" : 'with memory'}): ${server.url}`,
    );
  }

  const shutdown = async () => {
    await Promise.all(servers.map((server) => server.close()));
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
