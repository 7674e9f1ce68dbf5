// Bare Fastify: one route answering the same small JSON object as bare-server.mjs, with Fastify's
// defaults (no logger, no hooks, no schemas). Between it and bare node:http is the framework's share;
// between it and the reference server's `GET /healthz` is what our set-up adds.
//
//   node apps/server/bench/bare-fastify.mjs PORT
import Fastify from 'fastify';

const port = Number(process.argv[2]);
const app = Fastify();
app.get('/', async () => ({ status: 'ok' }));
await app.listen({ port, host: '127.0.0.1' });
