// A stand-in for the public npm registry: it forwards every request to the registry npm uses here and
// records what was asked for, so a test can tell whether npm ever asked the public registry for a package of
// our scope (dependency confusion: whoever registers `@platform-api` there could serve it).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** The decoded paths asked for, in order (`/@platform-api/client`, `/openapi-fetch`, …). */
  requested: string[];
  close(): Promise<void>;
}

const FORWARDED_HEADERS = ['accept', 'user-agent', 'npm-command', 'content-type', 'content-encoding'];

export async function startRecordingRegistry(upstream: string): Promise<RecordingRegistry> {
  const requested: string[] = [];
  const server = http.createServer(async (request, response) => {
    const path = request.url ?? '/';
    requested.push(decodeURIComponent(path));
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    // npm POSTs its audit (the installed names and versions) to the registry too.
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = ['GET', 'HEAD'].includes(request.method ?? 'GET') ? undefined : Buffer.concat(chunks);
    fetch(new URL(path.replace(/^\//, ''), upstream), { method: request.method, headers, body })
      .then(async (answer) => {
        // fetch has decoded the body: send it without the upstream's encoding and length.
        const answered = Buffer.from(await answer.arrayBuffer());
        const contentType = answer.headers.get('content-type');
        response.writeHead(answer.status, {
          ...(contentType ? { 'content-type': contentType } : {}),
          'content-length': answered.length,
        });
        response.end(request.method === 'HEAD' ? undefined : answered);
      })
      .catch((error: Error) => {
        const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
        response.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream: ${error.message}${cause}\n`);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
