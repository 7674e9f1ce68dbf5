// A TLS front for a plain-HTTP service (the Prism mock): what a user puts before it (a reverse proxy,
// stunnel) for a client that only speaks HTTPS, such as the service's Node SDK. Bytes are passed through
// unchanged both ways; the service sees the same requests it would see directly.
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';

export interface TlsFront {
  /** `127.0.0.1:port`. */
  host: string;
  close(): Promise<void>;
}

export function startTlsFront(
  target: { host: string; port: number },
  certificate: { cert: string; key: string },
): Promise<TlsFront> {
  const open = new Set<Socket | TLSSocket>();
  const server = createServer({ cert: certificate.cert, key: certificate.key }, (client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        host: `127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of open) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
