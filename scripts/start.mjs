// `npm start`: checks its ports, installs the workspace, builds what runs, then starts the reference
// server (embedded SQLite in ./data), the Prism mocks of both APIs and the docs site, and prints their
// URLs. Ctrl-C or SIGTERM stops them all.
import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { installWorkspace, log, pnpm, root, turboEnv } from './lib/toolchain.mjs';

/** Each port, the variable that moves it, and what listens there. */
const portSettings = {
  server: { variable: 'PORT', fallback: 3000, what: 'the reference server' },
  platformMock: { variable: 'MOCK_PLATFORM_PORT', fallback: 4010, what: 'the platform API mock' },
  siteMock: { variable: 'MOCK_SITE_PORT', fallback: 4011, what: 'the site API mock' },
  docs: { variable: 'DOCS_PORT', fallback: 4000, what: 'the docs' },
};
const ports = Object.fromEntries(
  Object.entries(portSettings).map(([key, { variable, fallback }]) => [
    key,
    Number(process.env[variable] ?? fallback),
  ]),
);

/** Whether nothing listens on the port (any address: a listener on 127.0.0.1 or :: counts). */
function isFree(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '0.0.0.0', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

const dataDir = process.env.PLATFORM_DATA_DIR ?? 'data';

// Before anything else: a busy port would otherwise show up as another instance's "Running" URLs and
// then a crash.
const busy = [];
for (const [key, setting] of Object.entries(portSettings)) {
  const port = ports[key];
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    busy.push(`${setting.variable}=${process.env[setting.variable]} is not a TCP port`);
  } else if (!(await isFree(port))) {
    // A second stack also needs its own SQLite data: the server refuses a data directory another uses.
    const alsoData = key === 'server' ? ` PLATFORM_DATA_DIR=${dataDir}-${port + 100}` : '';
    busy.push(
      `port ${port} (${setting.what}) is in use — stop what listens there (another npm start?), or move it: ${setting.variable}=${port + 100}${alsoData} npm start`,
    );
  }
}
if (busy.length > 0) {
  console.error(`npm start cannot start:\n${busy.map((line) => `  - ${line}`).join('\n')}`);
  process.exit(1);
}

// The server speaks HTTPS when it is given a certificate (apps/server/README.md, "HTTPS"); it reads the
// variables itself and refuses a half configuration.
const serverScheme = process.env.PLATFORM_TLS_CERT || process.env.PLATFORM_TLS_KEY ? 'https' : 'http';

const services = [
  {
    name: 'server',
    command: [
      'node',
      'apps/server/dist/cli.js',
      'serve',
      '--port',
      String(ports.server),
      '--data-dir',
      dataDir,
      '--docs-url',
      `http://localhost:${ports.docs}/`,
      // The docs' Try it console calls the server from the docs' origin (CORS), on whatever port it has.
      '--cors-origins',
      `http://localhost:${ports.docs},http://127.0.0.1:${ports.docs}`,
      // Short lines for a console (LOG_FORMAT=json restores the JSON a log collector wants).
      '--log-format',
      process.env.LOG_FORMAT ?? 'pretty',
    ],
    ready: `${serverScheme}://127.0.0.1:${ports.server}/readyz`,
    urls: [`Reference platform server: ${serverScheme}://localhost:${ports.server}`],
  },
  {
    name: 'mock',
    command: ['node', 'apps/mock/dist/cli.js'],
    env: { MOCK_PLATFORM_PORT: String(ports.platformMock), MOCK_SITE_PORT: String(ports.siteMock) },
    ready: `http://127.0.0.1:${ports.siteMock}/`,
    urls: [
      `Platform API mock (memory): http://localhost:${ports.platformMock}`,
      `Site API mock (memory):     http://localhost:${ports.siteMock}`,
    ],
  },
  {
    name: 'docs',
    command: ['node', 'docs/scripts/serve.mjs'],
    // The docs' code samples, commands and console call the reference server where it runs (PORT, HTTPS).
    env: {
      DOCS_PORT: String(ports.docs),
      DOCS_PLATFORM_SERVER_URL: `${serverScheme}://localhost:${ports.server}`,
    },
    ready: `http://127.0.0.1:${ports.docs}/`,
    urls: [`Docs:                       http://localhost:${ports.docs}/`],
  },
];

installWorkspace();
log('Building the specs, the client, the server, the mocks and the docs (turbo)');
pnpm(
  [
    'exec',
    'turbo',
    'run',
    'build',
    // What runs is shown as it runs (a first build takes minutes); what comes from turbo's cache is not.
    '--output-logs=new-only',
    ...services.map((s) => `--filter=@platform-api/${s.name}`),
  ],
  {
    env: turboEnv,
  },
);

log('Starting');
const children = services.map((service) => {
  const [command, ...args] = service.command;
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...service.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `[${service.name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream.on('data', (chunk) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) console.log(prefix + line);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${prefix}exited (${code ?? signal}); stopping everything`);
      stop(1);
    }
  });
  return child;
});

let stopping = false;
/**
 * Asks every service to stop and waits for them: the server finishes in-flight requests and deliveries
 * first (up to 30 s). A second signal, or 35 s, kills what is left.
 */
function stop(code = 0) {
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  if (stopping) {
    for (const child of running) child.kill('SIGKILL');
    process.exit(code || 1);
  }
  stopping = true;
  for (const child of running) child.kill('SIGTERM');
  setTimeout(() => stop(code), 35_000).unref();
  Promise.all(running.map((child) => new Promise((resolve) => child.once('exit', resolve)))).then(() =>
    process.exit(code),
  );
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(0));

/**
 * The status a URL answers. Over HTTPS the certificate is not checked: this only asks whether the child
 * we started is up (a self-signed certificate is the usual case here); clients check it themselves.
 */
function statusOf(url) {
  if (!url.startsWith('https:')) return fetch(url).then((response) => response.status);
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, { rejectUnauthorized: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

async function waitFor(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await statusOf(url)) < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

try {
  await Promise.all(services.map((service) => waitFor(service.ready)));
} catch (error) {
  console.error(String(error));
  stop(1);
}
if (!stopping) {
  console.log('\n\x1b[1mRunning:\x1b[0m');
  for (const line of services.flatMap((service) => service.urls)) console.log(`  ${line}`);
  console.log(
    "\nThe development client's credentials are printed above by the server on its first start (see the README).",
  );
  console.log('Press Ctrl-C to stop.\n');
}
