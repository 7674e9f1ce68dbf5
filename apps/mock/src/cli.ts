#!/usr/bin/env node
// Starts the Prism mocks: `platform-api-mock [platform|site ...]` (both by default).
import { type MockedApi, type MockServer, mockedApis, startMock } from './index.js';

const requested = process.argv.slice(2);
const apis = (requested.length > 0 ? requested : Object.keys(mockedApis)) as MockedApi[];
for (const api of apis) {
  if (!(api in mockedApis)) {
    console.error(`Unknown API "${api}". Known: ${Object.keys(mockedApis).join(', ')}`);
    process.exit(2);
  }
}

const servers: MockServer[] = [];
for (const api of apis) {
  const port = Number(process.env[`MOCK_${api.toUpperCase()}_PORT`] ?? mockedApis[api].defaultPort);
  const server = await startMock(api, { port });
  servers.push(server);
  console.log(`${api} mock (Prism): ${server.url}`);
}

const shutdown = async () => {
  await Promise.all(servers.map((server) => server.close()));
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
