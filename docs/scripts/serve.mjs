// A small static file server for dist/ (used by `npm start` and by the browser test).
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const types = {
  '.html': 'text/html; charset=utf-8',
  '.png': 'image/png',
  '.json': 'application/json',
  '.css': 'text/css',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Reads a JSON request body of at most `limit` bytes. */
function readJson(request, limit = 64 * 1024) {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks = [];
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size > limit) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new Error('the body is not JSON'));
      }
    });
    request.on('error', reject);
  });
}

/**
 * `POST /try/trigger` {eventType, to, secret?}: the reference's webhook pages send a test event through
 * the mock's `trigger` (apps/mock: the description's example, signed, with a callback endpoint), as
 * `node apps/mock/dist/cli.js trigger` does. JSON only: a page of another origin cannot send that
 * without a preflight, which this server does not grant, so only the docs' own pages use it.
 */
async function sendTestEvent(request, response) {
  const answer = (status, body) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (request.method !== 'POST') return answer(405, { error: 'POST only' });
  if (!/^application\/json\b/.test(request.headers['content-type'] ?? ''))
    return answer(415, { error: 'send JSON' });
  let mock;
  try {
    mock = await import('@platform-api/mock');
  } catch {
    return answer(501, {
      error: 'the mock is not built: pnpm exec turbo run build --filter=@platform-api/mock',
    });
  }
  let input;
  try {
    input = await readJson(request);
  } catch (error) {
    return answer(400, { error: error.message });
  }
  const { eventType, to, secret } = input ?? {};
  if (typeof eventType !== 'string' || typeof to !== 'string' || !URL.canParse(to))
    return answer(400, { error: 'eventType and an absolute URL to send it to are needed' });
  const lines = [];
  try {
    const result = await mock.trigger({
      eventType,
      to,
      ...(typeof secret === 'string' && secret ? { secret } : {}),
      // The page reports the delivery; the receiver's post-back is checked by the command (--wait).
      waitMs: 0,
      log: (line) => lines.push(line),
    });
    answer(200, { ...result, lines });
  } catch (error) {
    answer(400, { error: error.message, lines });
  }
}

/**
 * The platform reference server's address the build wrote into the pages (code samples, the console, the
 * guides' commands: assets/default-servers.json), and a function that puts `platformServer` in its place,
 * or undefined when there is nothing to replace.
 */
function serverRewrite(platformServer) {
  const to = platformServer?.replace(/\/+$/, '');
  if (!to) return undefined;
  let from;
  try {
    from = JSON.parse(readFileSync(join(dist, 'assets', 'default-servers.json'), 'utf8')).platform;
  } catch {
    return undefined;
  }
  if (typeof from !== 'string' || from === to) return undefined;
  // Not a longer port that starts the same (http://localhost:30001).
  const pattern = new RegExp(`${from.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?!\\d)`, 'g');
  return (text) => text.replace(pattern, () => to);
}

/**
 * Serves dist/ on host:port (0 picks a free port); resolves to { url, close }. `platformServer`: where the
 * platform reference server runs when that is not where the build pointed the pages (`npm start` passes
 * it when `PORT` or HTTPS moves the server): pages and scripts are served with its address in their code
 * samples, commands and console.
 * @param {{ port?: number, host?: string, platformServer?: string }} [options]
 */
export function serveDocs({ port = 4000, host = '127.0.0.1', platformServer } = {}) {
  // Read once: the build is done before the docs are served.
  const rewrite = serverRewrite(platformServer);
  const server = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://x').pathname === '/try/trigger') {
      sendTestEvent(request, response).catch((error) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(String(error));
      });
      return;
    }
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    let file = normalize(join(dist, pathname));
    if (!file.startsWith(dist)) {
      response.writeHead(403).end('Forbidden');
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const type = types[extname(file)] ?? 'application/octet-stream';
    if (rewrite && /^text\/(html|javascript)/.test(type)) {
      response.writeHead(200, { 'content-type': type }).end(rewrite(readFileSync(file, 'utf8')));
      return;
    }
    response.writeHead(200, { 'content-type': type });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        url: `http://${host}:${address.port}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await serveDocs({
    port: Number(process.env.DOCS_PORT ?? 4000),
    platformServer: process.env.DOCS_PLATFORM_SERVER_URL,
  });
  console.log(`docs: ${url}/`);
}
