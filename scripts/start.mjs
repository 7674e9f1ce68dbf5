// `npm start`: installs the workspace, builds what runs, then starts the reference server (embedded
// SQLite in ./data), the Prism mocks of both APIs and the docs site, and prints their URLs.
// Ctrl-C stops them all.
import { spawn } from 'node:child_process';
import { installWorkspace, log, pnpm, root, turboEnv } from './lib/toolchain.mjs';

const ports = {
  server: Number(process.env.PORT ?? 3000),
  platformMock: Number(process.env.MOCK_PLATFORM_PORT ?? 4010),
  siteMock: Number(process.env.MOCK_SITE_PORT ?? 4011),
  docs: Number(process.env.DOCS_PORT ?? 4000),
};

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
      process.env.PLATFORM_DATA_DIR ?? 'data',
    ],
    ready: `http://127.0.0.1:${ports.server}/readyz`,
    urls: [`Reference platform server: http://localhost:${ports.server}`],
  },
  {
    name: 'mock',
    command: ['node', 'apps/mock/dist/cli.js'],
    env: { MOCK_PLATFORM_PORT: String(ports.platformMock), MOCK_SITE_PORT: String(ports.siteMock) },
    ready: `http://127.0.0.1:${ports.siteMock}/`,
    urls: [
      `Platform API mock (Prism):  http://localhost:${ports.platformMock}`,
      `Site API mock (Prism):      http://localhost:${ports.siteMock}`,
    ],
  },
  {
    name: 'docs',
    command: ['node', 'docs/scripts/serve.mjs'],
    env: { DOCS_PORT: String(ports.docs) },
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
    '--output-logs=errors-only',
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
function stop(code = 0) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  Promise.all(
    children.map((child) => (child.exitCode === null ? new Promise((r) => child.once('exit', r)) : null)),
  ).then(() => process.exit(code));
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

async function waitFor(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
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
