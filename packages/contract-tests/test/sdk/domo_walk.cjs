// Drives the service's Node SDK (domo-sdk from npm, unmodified) through the platform API.
//
// Called by domo-sdk.test.ts, as a user would run a script of their own:
//
//   NODE_EXTRA_CA_CERTS=cert.pem node domo_walk.cjs --host=127.0.0.1:PORT \
//       --client-id=ID --client-secret=SECRET --fixtures=JSON
//
// The same walk for the reference server and the platform mock (behind a TLS front): the mock keeps state.
//
// The SDK builds `https://${host}` itself (there is no HTTP option) and sends with the `request` library
// over node:https, which trusts what NODE_EXTRA_CA_CERTS adds: that is how the test's self-signed
// certificate is trusted, with nothing passed to the SDK. `--fixtures` carries the spec's own examples.
// Each step is one call of the SDK's public API; a failing step is recorded and the walk goes on with the
// steps that do not depend on it. Every HTTP exchange is observed through node's diagnostics channels
// (method, URL, status: an observer only, the SDK is not touched).
//
// Prints one line `DOMO_WALK <json>` on stdout: {sdk, steps: [{name, ok, value | error, exchanges}]}.
'use strict';

const diagnostics = require('node:diagnostics_channel');
const { parseArgs } = require('node:util');
const { DomoClient } = require('domo-sdk');
const { API_SCOPE } = require('domo-sdk/dist/common/Constants');
const sdkVersion = require('domo-sdk/package.json').version;

let exchanges = [];
diagnostics.subscribe('http.client.response.finish', ({ request, response }) => {
  exchanges.push({
    method: request.method,
    url: `${request.protocol}//${request.getHeader('host')}${request.path}`,
    status: response.statusCode,
  });
});

/** What an SDK error says: its message and the HTTP answer under it (the `request` library's error). */
function describeError(error) {
  const cause = error?.error;
  if (cause && cause.statusCode !== undefined) {
    const body = typeof cause.error === 'string' ? cause.error : JSON.stringify(cause.error);
    return `${error.message}: HTTP ${cause.statusCode} ${body}`;
  }
  return `${error?.message}${cause?.message ? `: ${cause.message}` : ''}`;
}

function walkSteps(fixtures) {
  const { user, userUpdate, group, groupUpdate, dataset, datasetUpdate, csvImport } = fixtures;
  const userId = (r) => r.users_create.id;
  const groupId = (r) => r.groups_create.id;
  const datasetId = (r) => r.datasets_create.id;
  return [
    ['users_create', [], (d) => d.users.create(user, false)],
    ['users_get', ['users_create'], (d, r) => d.users.get(userId(r))],
    ['users_update', ['users_create'], (d, r) => d.users.update(userId(r), userUpdate)],
    ['users_get_updated', ['users_create'], (d, r) => d.users.get(userId(r))],
    ['users_list', ['users_create'], (d) => d.users.list(500, 0)],
    ['groups_create', [], (d) => d.groups.create(group)],
    ['groups_get', ['groups_create'], (d, r) => d.groups.get(groupId(r))],
    ['groups_update', ['groups_create'], (d, r) => d.groups.update(groupId(r), groupUpdate)],
    ['groups_get_updated', ['groups_create'], (d, r) => d.groups.get(groupId(r))],
    ['groups_list', ['groups_create'], (d) => d.groups.list(500, 0)],
    ['groups_add_user', ['groups_create', 'users_create'], (d, r) => d.groups.addUser(groupId(r), userId(r))],
    ['groups_list_users', ['groups_create'], (d, r) => d.groups.listUsers(groupId(r), 500, 0)],
    [
      'groups_remove_user',
      ['groups_create', 'users_create'],
      (d, r) => d.groups.removeUser(groupId(r), userId(r)),
    ],
    ['groups_list_users_after', ['groups_create'], (d, r) => d.groups.listUsers(groupId(r), 500, 0)],
    ['groups_delete', ['groups_create'], (d, r) => d.groups.delete(groupId(r))],
    ['groups_get_deleted', ['groups_create'], (d, r) => d.groups.get(groupId(r))],
    ['datasets_create', [], (d) => d.datasets.create(dataset)],
    ['datasets_get', ['datasets_create'], (d, r) => d.datasets.get(datasetId(r))],
    ['datasets_update', ['datasets_create'], (d, r) => d.datasets.update(datasetId(r), datasetUpdate)],
    ['datasets_get_updated', ['datasets_create'], (d, r) => d.datasets.get(datasetId(r))],
    ['datasets_list', ['datasets_create'], (d) => d.datasets.list(50, 0)],
    ['datasets_import', ['datasets_create'], (d, r) => d.datasets.importData(datasetId(r), csvImport)],
    ['datasets_export', ['datasets_create'], (d, r) => d.datasets.exportData(datasetId(r), true)],
    ['datasets_delete', ['datasets_create'], (d, r) => d.datasets.delete(datasetId(r))],
    ['datasets_get_deleted', ['datasets_create'], (d, r) => d.datasets.get(datasetId(r))],
    ['users_delete', ['users_create'], (d, r) => d.users.delete(userId(r))],
    ['users_get_deleted', ['users_create'], (d, r) => d.users.get(userId(r))],
  ];
}

async function main() {
  const { values } = parseArgs({
    options: {
      host: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      fixtures: { type: 'string' },
    },
  });
  const fixtures = JSON.parse(values.fixtures);
  // The SDK's scopes are its own enum (API_SCOPE.USER, API_SCOPE.DATA), named like the spec's scopes.
  const scopes = fixtures.scopes.map((scope) => API_SCOPE[scope.toUpperCase()]);
  const domo = new DomoClient(values['client-id'], values['client-secret'], scopes, values.host);

  const steps = [];
  const results = {};
  // One call after the other: the SDK shares one token between sequential calls.
  for (const [name, needs, call] of walkSteps(fixtures)) {
    const missing = needs.filter((need) => !(need in results));
    if (missing.length > 0) {
      steps.push({ name, ok: false, error: `not run: needs ${missing.join(', ')}`, exchanges: [] });
      continue;
    }
    exchanges = [];
    try {
      const value = await call(domo, results);
      results[name] = value;
      // `undefined` (an empty answer) is reported as null.
      steps.push({ name, ok: true, value: value === undefined ? null : value, exchanges });
    } catch (error) {
      steps.push({ name, ok: false, error: describeError(error), exchanges });
    }
  }
  process.stdout.write(`DOMO_WALK ${JSON.stringify({ sdk: sdkVersion, steps })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack}\n`);
  process.exit(1);
});
