import { type ChildProcess, spawn } from 'node:child_process';
import http, { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import {
  collectOperations,
  isObject,
  joinPointer,
  loadBundle,
  type OpenApiDocument,
  type Operation,
  SpecValidator,
  templateToRegExp,
} from '@platform-api/validator';
import { aboutRefused, documentedAnswer } from './documented.js';
import { CALLBACK_CHALLENGE, ChatEvents } from './events.js';
import {
  type ChallengeRoute,
  createFront,
  type Documented,
  type Front,
  type FrontOptions,
  type RuledRoute,
} from './front.js';
import { queryReader } from './query.js';
import { StateEngine } from './state/engine.js';

/** The APIs this package mocks, each served from its bundle in @platform-api/spec. */
export const mockedApis = {
  platform: { bundle: '@platform-api/spec/platform.openapi.json', defaultPort: 4010 },
  site: { bundle: '@platform-api/spec/site.openapi.json', defaultPort: 4011 },
} as const;

export type MockedApi = keyof typeof mockedApis;

/** Another bundled OpenAPI document (JSON, local `$ref`s only) to mock, by path: nothing of the two APIs applies. */
export interface OtherApi {
  bundle: string;
}

export interface MockServer {
  api: MockedApi | OtherApi;
  url: string;
  close(): Promise<void>;
}

export interface StartMockOptions {
  /** The port to listen on; 0 picks a free one (see `url`). */
  port?: number;
  host?: string;
  /**
   * Where Prism's output goes, and one line per request the mock answered (`mock: GET /v1/users 200 state`,
   * or `prism` when Prism's answer was passed on); defaults to dropping both (tests).
   */
  log?: NodeJS.WritableStream;
  /** How long to wait for Prism to listen; default PLATFORM_START_TIMEOUT_MS, else 3 minutes. */
  readyTimeoutMs?: number;
  /** Prism's examples only, no memory (README: "Memory"). */
  stateless?: boolean;
  /** Items a tenant keeps at most, oldest dropped first (default 10,000). */
  maxItems?: number;
  /** Tenants kept at most, least recently active dropped first (default 1,000). */
  maxTenants?: number;
  /** A CA certificate (PEM text) the event deliveries trust besides the system's (a self-signed receiver). */
  webhookCa?: string;
}

const require = createRequire(import.meta.url);

function prismBinary(): string {
  // The package's own bin, resolved through node's resolution so it works from any cwd.
  const pkg = require.resolve('@stoplight/prism-cli/package.json');
  return join(dirname(pkg), 'dist', 'index.js');
}

/** Where Prism itself listens: loopback only, reached through the front. */
const PRISM_HOST = '127.0.0.1';

/**
 * Starts Prism on one bundled spec behind a small node:http front (front.ts) listening on `port`.
 * `--errors` makes Prism answer schema-invalid requests with the spec's own 4xx responses (or 422)
 * instead of only logging the violation.
 */
export async function startMock(
  api: MockedApi | OtherApi,
  options: StartMockOptions = {},
): Promise<MockServer> {
  const known = typeof api === 'string' ? api : undefined;
  const host = options.host ?? '127.0.0.1';
  let front: Front | undefined;
  const server = http.createServer((request, response) => {
    if (front) front.handle(request, response);
    else response.writeHead(503, { 'retry-after': '1' }).end('The mock is starting.\n');
  });
  // The public port first, so that a busy one fails before Prism is started.
  await listen(server, host, options.port ?? (known ? mockedApis[known].defaultPort : 0));
  const port = (server.address() as AddressInfo).port;
  let child: ChildProcess | undefined;
  try {
    const prismPort = await loopbackPort();
    const bundle = known ? require.resolve(mockedApis[known].bundle) : (api as OtherApi).bundle;
    child = spawn(
      process.execPath,
      [
        prismBinary(),
        'mock',
        bundle,
        '--host',
        PRISM_HOST,
        '--port',
        String(prismPort),
        '--errors',
        // CORS for any origin (Prism's own): the docs' try-it console calls the mocks from a browser page.
        '--cors',
        'true',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    await waitUntilListening(child, `http://${PRISM_HOST}:${prismPort}`, options);
    const document = loadBundle(bundle);
    const validator = new SpecValidator(document);
    const findOperation: SpecValidator['findOperation'] = (method, path) =>
      validator.findOperation(method, path);
    front = createFront(
      { host: PRISM_HOST, port: prismPort },
      {
        challenges: known === 'platform' ? platformChallenges() : [],
        ruled: ruledRoutes(document),
        mountPath: mountPath(document),
        query: queryReader(validator, findOperation),
        allow: allowedMethods(validator.operations),
        ...(options.log ? { onAnswer: (line: string) => options.log?.write(`mock: ${line}\n`) } : {}),
        refusesNull: (method, pathname) => refusesNull(validator, findOperation(method, pathname)),
        documented: documentedFor(validator, findOperation),
        emptyIsBody: (method, pathname, contentType) =>
          emptyIsBody(validator, findOperation(method, pathname), contentType),
        ...(known === 'platform'
          ? platformErrors
          : known === 'site'
            ? siteAnswers(validator, findOperation)
            : {}),
        ...(options.stateless
          ? {}
          : {
              state: {
                engine: new StateEngine(validator, {
                  log: (line) => options.log?.write(`mock: ${line}\n`),
                  ...(options.webhookCa !== undefined ? { webhookCa: options.webhookCa } : {}),
                  ...(options.maxItems !== undefined ? { maxItems: options.maxItems } : {}),
                  ...(options.maxTenants !== undefined ? { maxTenants: options.maxTenants } : {}),
                }),
                findOperation,
              },
            }),
      },
    );
  } catch (error) {
    await closeServer(server);
    if (child) await stopChild(child);
    throw error;
  }
  const prism = child;
  return {
    api,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: async () => {
      await closeServer(server);
      front?.close();
      await stopChild(prism);
    },
  };
}

/** The bundle's operations with request rules its schemas cannot state (front.ts holds requests to them). */
function ruledRoutes(document: OpenApiDocument): RuledRoute[] {
  return collectOperations(document)
    .filter((operation) => operation.kind === 'path' && operation.node['x-required-in-one-of'] !== undefined)
    .map((operation) => ({
      method: operation.method.toUpperCase(),
      path: templateToRegExp(operation.path),
      operation,
    }));
}

/** Whether the operation's JSON request body schema refuses `null` (front.ts sends such a request the 400). */
function refusesNull(validator: SpecValidator, operation: Operation | undefined): boolean {
  const body = operation?.requestBody;
  const mediaType = Object.keys(body?.content ?? {}).find((type) => /json/i.test(type));
  if (!body || !mediaType) return false;
  return validator.validateAt(joinPointer(body.pointer, 'content', mediaType, 'schema'), null).length > 0;
}

/** The answers the front takes from the bundle (documented.ts), for the request's operation. */
function documentedFor(validator: SpecValidator, findOperation: SpecValidator['findOperation']): Documented {
  return {
    answer: (method, pathname, status) => {
      const operation = findOperation(method, pathname);
      return operation && documentedAnswer(validator, operation, status);
    },
    aboutRefused: (method, pathname, body, refusal) => {
      const operation = findOperation(method, pathname);
      return operation ? aboutRefused(validator, operation, body, refusal) : body;
    },
    acceptable: (method, pathname, accept) => {
      const operation = findOperation(method, pathname);
      if (!operation || operation.responses['406']) return true;
      // What a success answers in: an error's JSON is no answer to an `Accept` asking for JSON data.
      const documented = Object.entries(operation.responses)
        .filter(([status]) => status.startsWith('2'))
        .flatMap(([, response]) =>
          Object.keys(isObject(response.content) ? response.content : {}).map((type) => type.toLowerCase()),
        );
      return accept.split(',').some((part) => {
        const type = part.split(';')[0]?.trim().toLowerCase() ?? '';
        if (type === '*/*' || type === '') return true;
        return type.endsWith('/*')
          ? documented.some((candidate) => candidate.startsWith(type.slice(0, -1)))
          : documented.includes(type);
      });
    },
    // The documented 413's `x-state: {maxBytes: {<media type>: bytes}}`.
    bodyLimit: (method, pathname, contentType) => {
      const response = findOperation(method, pathname)?.responses['413'];
      const limits = isObject(response?.['x-state']) ? response['x-state'].maxBytes : undefined;
      const bytes = isObject(limits)
        ? limits[contentType.split(';')[0]?.trim().toLowerCase() ?? '']
        : undefined;
      return typeof bytes === 'number' ? bytes : undefined;
    },
  };
}

/**
 * Whether an empty body of this media type is a body the operation takes (a CSV without rows): its schema
 * takes the empty string. Prism reads an empty body as none (front.ts gives it a line break instead).
 */
function emptyIsBody(
  validator: SpecValidator,
  operation: Operation | undefined,
  contentType: string,
): boolean {
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const body = operation?.requestBody;
  if (!body || mediaType === '' || /json/.test(mediaType) || !body.content[mediaType]?.schema) return false;
  return validator.validateAt(joinPointer(body.pointer, 'content', mediaType, 'schema'), '').length === 0;
}

/** Path → the methods its operations offer, HEAD wherever GET is (literal segments win over templated ones). */
function allowedMethods(operations: Operation[]): (pathname: string) => string[] | undefined {
  const byPath = new Map<string, Set<string>>();
  for (const operation of operations) {
    if (operation.kind !== 'path') continue;
    const methods = byPath.get(operation.path) ?? new Set<string>();
    methods.add(operation.method.toUpperCase());
    if (operation.method === 'get') methods.add('HEAD');
    byPath.set(operation.path, methods);
  }
  const paths = [...byPath]
    .map(([path, methods]) => ({
      pattern: templateToRegExp(path),
      methods: [...methods].sort(),
      templated: (path.match(/\{/g) ?? []).length,
    }))
    .sort((a, b) => a.templated - b.templated);
  return (pathname) => paths.find((path) => path.pattern.test(pathname))?.methods;
}

/**
 * The platform's `ApiError` (spec/platform/components/schemas/ApiError.yaml; `toe` may be empty) for the
 * answers the front gives itself, as the reference server gives them: a method the path does not offer
 * (405 with `Allow`) and a malformed JSON body (400).
 */
const platformErrors: Pick<FrontOptions, 'errorBody' | 'ownMethodNotAllowed'> = {
  ownMethodNotAllowed: true,
  errorBody: (status, path, message) => ({
    status,
    statusReason: STATUS_CODES[status] ?? '',
    path,
    message,
    toe: '',
  }),
};

/**
 * WordPress's answers: `rest_invalid_json` for a malformed JSON body (WP_REST_Server::serve_request), and
 * its list and discovery headers (front.ts), a list being an operation whose 200 declares
 * `X-WP-TotalPages` and whose `per_page` default is its page size.
 */
function siteAnswers(
  validator: SpecValidator,
  findOperation: SpecValidator['findOperation'],
): Pick<FrontOptions, 'errorBody' | 'wordpress'> {
  const paged = (pathname: string) => {
    const operation = findOperation('get', pathname);
    const ok = operation?.responses['200'];
    const headers = isObject(ok?.headers) ? Object.keys(ok.headers).map((name) => name.toLowerCase()) : [];
    if (!operation || !headers.includes('x-wp-totalpages')) return undefined;
    const perPage = operation.parameters.find((p) => p.node.in === 'query' && p.node.name === 'per_page');
    const schema =
      perPage && validator.resolve({ node: perPage.node.schema, pointer: `${perPage.pointer}/schema` }).node;
    return { perPage: Number(schema?.default) || 10 };
  };
  return {
    errorBody: (status) => ({
      code: 'rest_invalid_json',
      message: 'Invalid JSON body passed.',
      data: { status },
    }),
    wordpress: { paged },
  };
}

/** The path of the first server's URL (`{site_url}/wp-json` → `/wp-json`), where real servers serve the API. */
function mountPath(document: OpenApiDocument): string | undefined {
  const url = (document.servers as Array<{ url?: unknown }> | undefined)?.[0]?.url;
  const path = typeof url === 'string' ? url.replace(/^(\{[^}]+\}|[a-z]+:\/\/[^/]+)/i, '') : '';
  return path && path !== '/' ? path.replace(/\/$/, '') : undefined;
}

/** The callback operation authenticates with its token header, and its 401 says so (events.ts). */
function platformChallenges(): ChallengeRoute[] {
  const { operation } = new ChatEvents().callback;
  return [
    {
      method: operation.method.toUpperCase(),
      path: templateToRegExp(operation.path),
      challenge: CALLBACK_CHALLENGE,
    },
  ];
}

function listen(server: http.Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** A free loopback port for Prism (Prism cannot be told to pick one and report it). */
function loopbackPort(): Promise<number> {
  const probe = http.createServer();
  return listen(probe, PRISM_HOST, 0).then(
    () =>
      new Promise((resolve) => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      }),
  );
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function waitUntilListening(child: ChildProcess, url: string, options: StartMockOptions): Promise<void> {
  // Prism starts in about 2 s on a quiet machine; a loaded 2-core one (every test suite at once) can take
  // many times that.
  const timeoutMs = options.readyTimeoutMs ?? (Number(process.env.PLATFORM_START_TIMEOUT_MS) || 180_000);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `Prism did not start on ${url} within ${timeoutMs} ms (PLATFORM_START_TIMEOUT_MS waits longer); its last output:\n${output.slice(-2000)}`,
        ),
      );
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      // The tail only, for the error message: Prism writes lines per request for as long as it runs.
      output = (output + text).slice(-4000);
      options.log?.write(text);
      if (text.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with code ${code} before listening on ${url}:\n${output.slice(-2000)}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}

export { type CallbackServer, type PostBack, startCallbackServer } from './callback-server.js';
export { type ChatEvent, ChatEvents } from './events.js';
export { type Delivery, type TriggerOptions, type TriggerResult, trigger } from './trigger.js';
