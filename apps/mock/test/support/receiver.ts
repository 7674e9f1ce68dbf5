// A real HTTPS receiver of chat events on a free loopback port, with a self-signed certificate: what it is
// sent, and the status it answers (and what it does once it has answered) as the test says.
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SelfSignedCertificate } from '@platform-api/test-support';

export interface Received {
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  /** `https://localhost:<port>/chat-events`. */
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(
  certificate: SelfSignedCertificate,
  answer: (delivery: Received) => { status: number; afterwards?: () => void } = () => ({ status: 204 }),
): Promise<Receiver> {
  const received: Received[] = [];
  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery = {
        headers: request.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(delivery);
      const { status, afterwards } = answer(delivery);
      response.writeHead(status).end();
      afterwards?.();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}/chat-events`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
