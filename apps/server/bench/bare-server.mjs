// The benchmark's ceiling: bare node:http answering a small JSON object, serialised per request as a
// framework would. Whatever the reference server does beyond this costs throughput.
//
//   node apps/server/bench/bare-server.mjs PORT
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
createServer((_request, response) => {
  const body = JSON.stringify({ status: 'ok' });
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}).listen(port, '127.0.0.1');
