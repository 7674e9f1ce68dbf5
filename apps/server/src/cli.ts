#!/usr/bin/env node
import { type Flags, optionsHelp } from '@platform-api/cli-options';
import { buildApp } from './app.js';
import {
  bootstrapDevInstance,
  type CreatedClient,
  createClient,
  deleteClient,
  listClients,
} from './auth/clients.js';
import { SigningKeys } from './auth/signing-keys.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig, parseFlags, SERVER_OPTIONS, type ServerConfig } from './config.js';
import { type DataDirLock, lockDataDir } from './db/data-dir-lock.js';
import { checkDataDirectory, createDatabase, DataDirectoryError } from './db/database.js';
import { storageFault } from './db/faults.js';
import { startDispatcher } from './delivery/dispatcher.js';
import { startSweeper } from './delivery/sweeper.js';
import { createLogger, prettyDestination } from './logger.js';
import { declaredScopes, loadPlatformSpec } from './spec.js';

/*
 * platform-server — the reference server's command line.
 *   serve                      run the HTTP server (and the webhook dispatcher)
 *   clients create|list|delete manage API clients (client id + secret)
 */

const USAGE = `Usage:
  platform-server serve [options]
  platform-server clients create --instance NAME --scopes user,data,chat [--name TEXT] [--description TEXT] [--user-id ID] [--json]
  platform-server clients list [--instance NAME] [--json]
  platform-server clients delete CLIENT_ID
  platform-server keys list [--json]
  platform-server keys rotate
  platform-server help

Options of serve (flag / environment variable):
${optionsHelp(SERVER_OPTIONS)}

The clients and keys commands use the same database options (--data-dir, --database-url, --database-schema).
keys rotate: the next key signs new access tokens at once; tokens signed with the previous key stay valid
until they expire. Running servers pick the new key up by themselves.`;

class UsageError extends Error {}

/** Exit code when the data directory or the database cannot be used at start (2: configuration). */
const EXIT_DATABASE_UNUSABLE = 3;

/** Takes a command's own flags out of the map, leaving the configuration flags. */
function take(flags: Flags, name: string) {
  const value = flags.get(name);
  flags.delete(name);
  return value;
}

function takeString(flags: Flags, name: string): string | undefined {
  const value = take(flags, name);
  if (value === true) throw new UsageError(`--${name} needs a value`);
  // None of the command's own flags repeats (parseArgs gives a list only for one declared so).
  return Array.isArray(value) ? value.at(-1) : value;
}

export function formatDevCredentials(client: CreatedClient, config: ServerConfig): string {
  const scopes = client.scopes.join(' ');
  const tokenUrl = `${config.publicUrl}/oauth/token`;
  const line = '='.repeat(78);
  return [
    line,
    'Development credentials (printed once, on first start with an empty database; store them now)',
    `  instance:      ${client.instance}`,
    `  client id:     ${client.clientId}`,
    `  client secret: ${client.clientSecret}`,
    `  scopes:        ${scopes}`,
    'Get a token:',
    `  curl -s -u '${client.clientId}:${client.clientSecret}' '${tokenUrl}?grant_type=client_credentials&scope=${encodeURIComponent(scopes)}'`,
    line,
    `PLATFORM_DEV_CREDENTIALS ${JSON.stringify({ instance: client.instance, clientId: client.clientId, clientSecret: client.clientSecret, scopes: client.scopes, tokenUrl })}`,
    '',
  ].join('\n');
}

async function serve(flags: Flags): Promise<void> {
  const config = loadConfig(flags);
  const logger = createLogger(
    config.logLevel,
    config.logFormat === 'pretty' ? prettyDestination(process.stdout) : undefined,
  );
  const clock = systemClock;
  const doc = loadPlatformSpec();
  // One server per SQLite data directory (PostgreSQL serves several: they share the outbox safely).
  let lock: DataDirLock | undefined;
  if (!config.databaseUrl) {
    checkDataDirectory(config.dataDir);
    lock = lockDataDir(config.dataDir, (message) => logger.warn(message));
  }
  let connectionFailed = (error: Error) =>
    logger.warn({ err: error }, 'a PostgreSQL connection failed; the pool replaces it');
  const database = await createDatabase({ ...config, onConnectionError: (error) => connectionFailed(error) });

  if (config.bootstrapDevInstance) {
    const created = await bootstrapDevInstance(
      database.db,
      clock,
      config.devInstanceName,
      declaredScopes(doc),
    );
    if (created) process.stdout.write(formatDevCredentials(created, config));
  }

  const { app, beginShutdown, services } = await buildApp({ config, database, clock, logger, doc });
  // A restart of PostgreSQL fails every pooled connection at once: one line for the episode, not ten.
  connectionFailed = (error) => {
    const fault = storageFault(error);
    if (fault) services.storage.failed(fault);
    else logger.warn({ err: error }, 'a PostgreSQL connection failed; the pool replaces it');
  };
  await app.listen({ port: config.port, host: config.host });
  const dispatcher = config.deliveryEnabled
    ? startDispatcher({ database, config, logger, clock })
    : undefined;
  const sweeper = startSweeper({ db: database.db, clock, logger, retentionMs: config.delivery.retentionMs });
  logger.info(
    {
      port: config.port,
      database: database.engine,
      publicUrl: config.publicUrl,
      delivery: Boolean(dispatcher),
    },
    'platform server started',
  );
  if (config.tls.cert !== undefined && new URL(config.publicUrl).protocol === 'http:') {
    // Tokens carry it as `iss` and callbacks as their base: an http:// one is likely a leftover.
    logger.warn(
      { publicUrl: config.publicUrl },
      'the server speaks HTTPS but --public-url says http://; tokens and event callbacks name that URL',
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests and deliveries');
    beginShutdown();
    const timer = setTimeout(() => {
      logger.error('graceful shutdown took longer than 30 s; exiting');
      process.exit(1);
    }, 30_000);
    timer.unref();
    try {
      await app.close();
      await dispatcher?.stop();
      await sweeper.stop();
      await database.close();
      lock?.release();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

type Database = Awaited<ReturnType<typeof createDatabase>>;

/** Opens the database the remaining flags configure, runs `use` on it, and closes it. */
async function withDatabase(
  flags: Flags,
  use: (database: Database, config: ServerConfig) => Promise<void>,
): Promise<void> {
  const config = loadConfig(flags);
  const database = await createDatabase(config);
  try {
    await use(database, config);
  } finally {
    await database.close();
  }
}

async function createClientCommand(flags: Flags, json: boolean): Promise<void> {
  const instance = takeString(flags, 'instance');
  const scopesText = takeString(flags, 'scopes');
  const name = takeString(flags, 'name');
  const description = takeString(flags, 'description');
  const userIdText = takeString(flags, 'user-id');
  if (!instance || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(instance)) {
    throw new UsageError('--instance NAME is required (lower-case letters, digits and dashes)');
  }
  const known = declaredScopes(loadPlatformSpec());
  const scopes = (scopesText ?? '').split(/[ ,]+/).filter(Boolean);
  const unknown = scopes.filter((s) => !known.includes(s));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--scopes must list scopes among ${known.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
  }
  const userId = userIdText === undefined ? undefined : Number(userIdText);
  if (userId !== undefined && !Number.isSafeInteger(userId))
    throw new UsageError('--user-id must be an integer');
  await withDatabase(flags, async (database) => {
    const client = await createClient(database.db, systemClock, {
      instance,
      scopes: [...new Set(scopes)],
      ...(name !== undefined ? { name } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(userId !== undefined ? { userId } : {}),
    });
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ clientId: client.clientId, clientSecret: client.clientSecret })}\n`,
      );
    } else {
      process.stdout.write(
        `Client created in instance ${client.instance} (scopes: ${client.scopes.join(' ')}). The secret is shown only now.\n` +
          `  client id:     ${client.clientId}\n  client secret: ${client.clientSecret}\n`,
      );
    }
  });
}

async function listClientsCommand(flags: Flags, json: boolean): Promise<void> {
  const instance = takeString(flags, 'instance');
  await withDatabase(flags, async (database) => {
    const list = await listClients(database.db, instance);
    if (json) process.stdout.write(`${JSON.stringify(list)}\n`);
    else if (list.length === 0) process.stdout.write('No clients.\n');
    else {
      for (const c of list) {
        process.stdout.write(
          `${c.clientId}  ${c.instance}  user ${c.userId}  [${c.scopes.join(' ')}]  ${c.name}  ${c.createdAt}\n`,
        );
      }
    }
  });
}

async function deleteClientCommand(flags: Flags, id: string | undefined): Promise<void> {
  if (!id) throw new UsageError('clients delete needs a CLIENT_ID');
  await withDatabase(flags, async (database) => {
    if (!(await deleteClient(database, id))) {
      process.stderr.write(`No client with id ${id}.\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`Client ${id} deleted; its tokens are revoked.\n`);
  });
}

async function clients(sub: string | undefined, args: string[], flags: Flags): Promise<void> {
  const json = take(flags, 'json') !== undefined;
  if (sub === 'create') return createClientCommand(flags, json);
  if (sub === 'list') return listClientsCommand(flags, json);
  if (sub === 'delete') return deleteClientCommand(flags, args[0]);
  throw new UsageError(`unknown clients command ${sub ?? '(none)'}`);
}

async function keys(sub: string | undefined, flags: Flags): Promise<void> {
  const json = take(flags, 'json') !== undefined;
  if (sub !== 'list' && sub !== 'rotate') throw new UsageError(`unknown keys command ${sub ?? '(none)'}`);
  await withDatabase(flags, async (database, config) => {
    const store = new SigningKeys(database.db, systemClock, () => config.tokenTtlSeconds * 1000);
    if (sub === 'rotate') {
      const next = await store.rotate();
      process.stdout.write(
        json
          ? `${JSON.stringify({ kid: next.kid })}\n`
          : `New signing key ${next.kid}; tokens signed with the previous key stay valid until they expire.\n`,
      );
      return;
    }
    const list = await store.published();
    if (json) {
      process.stdout.write(
        `${JSON.stringify(list.map(({ kid, createdAt, retiredAt }) => ({ kid, createdAt, retiredAt })))}\n`,
      );
    } else if (list.length === 0) {
      process.stdout.write('No signing key yet (the server creates one on first start).\n');
    } else {
      for (const key of list) {
        const state = key.retiredAt === null ? 'signing' : `retired ${new Date(key.retiredAt).toISOString()}`;
        process.stdout.write(`${key.kid}  created ${new Date(key.createdAt).toISOString()}  ${state}\n`);
      }
    }
  });
}

async function main(argv: string[]): Promise<void> {
  const { flags, positionals, help } = parseFlags(argv);
  const [command, sub, ...rest] = positionals;
  try {
    // --help (-h) after any command or subcommand: the usage, never an action.
    if (help || command === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    if (command === 'serve' || command === undefined) {
      await serve(flags);
    } else if (command === 'clients') {
      await clients(sub, rest, flags);
    } else if (command === 'keys') {
      await keys(sub, flags);
    } else {
      throw new UsageError(`unknown command ${command}`);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nRun "platform-server help" for the options.\n`);
      process.exit(2);
    }
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    // The database cannot be used at start: one line naming why, and its own exit code (README, "When
    // the database fails").
    if (error instanceof DataDirectoryError) {
      process.stderr.write(`platform-server: ${error.message}\n`);
      process.exit(EXIT_DATABASE_UNUSABLE);
    }
    const fault = storageFault(error) ?? storageFault((error as Error).cause);
    if (fault) {
      process.stderr.write(`platform-server: the database cannot be used: ${fault.cause}\n`);
      process.exit(EXIT_DATABASE_UNUSABLE);
    }
    process.stderr.write(`platform-server: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

void main(process.argv.slice(2));
