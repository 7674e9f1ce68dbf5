import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './helpers/databases.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describeEachDialect('users on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    token = await server.token(['user']);
  });
  afterAll(async () => server?.close());

  const euler = {
    name: 'Leonhard Euler',
    email: 'leonhard.euler@example.com',
    role: 'Participant',
    title: 'Mathematician',
    alternateEmail: 'euler@example.org',
    phone: '+41 61 000 00 00',
    location: 'Basel, Switzerland',
    timezone: 'Europe/Zurich',
    locale: 'de-CH',
    employeeNumber: '1707',
  };

  it('creates a user: 201, Location, no timezone/locale, employeeNumber as integer', async () => {
    const res = await server.call('POST', '/v1/users?sendInvite=True', { token, json: euler });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/users/${res.body.id}`);
    expect(res.body).toMatchObject({
      name: euler.name,
      email: euler.email,
      role: 'Participant',
      employeeNumber: 1707,
    });
    expect(res.body.timezone).toBeUndefined();
    expect(res.body.locale).toBeUndefined();
    const read = await server.call('GET', res.headers.get('location') ?? '(no Location)', { token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      timezone: 'Europe/Zurich',
      locale: 'de-CH',
      employeeNumber: 1707,
      groups: [],
    });
  });

  it('accepts an integer employeeNumber and sendInvite in any case; trailing slash is the same route', async () => {
    const res = await server.call('POST', '/v1/users/?sendInvite=FALSE', {
      token,
      json: { name: 'Sophie Germain', email: 'sophie@example.com', role: 'Privileged', employeeNumber: 42 },
    });
    expect(res.status).toBe(201);
    expect(res.body.employeeNumber).toBe(42);
  });

  it('rejects invalid bodies with 400 and field details', async () => {
    const res = await server.call('POST', '/v1/users', {
      token,
      json: { name: 'X', email: 'not-an-email', role: 'King' },
    });
    expect(res.status).toBe(400);
    const fields = res.body.details.map((d: { field: string }) => d.field);
    expect(fields).toContain('body.email');
    expect(fields).toContain('body.role');
    const missing = await server.call('POST', '/v1/users', { token, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'body.email',
      'body.name',
      'body.role',
    ]);
    const employee = await server.call('POST', '/v1/users', {
      token,
      json: { name: 'X', email: 'x@example.com', role: 'Admin', employeeNumber: 'abc' },
    });
    expect(employee.status).toBe(400);
    const invite = await server.call('POST', '/v1/users?sendInvite=maybe', {
      token,
      json: { name: 'X', email: 'x@example.com', role: 'Admin' },
    });
    expect(invite.status).toBe(400);
  });

  it('answers 409 for an e-mail already in use', async () => {
    const res = await server.call('POST', '/v1/users', {
      token,
      json: { ...euler, email: euler.email.toUpperCase() },
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(`A user with e-mail ${euler.email.toUpperCase()} already exists.`);
  });

  it('lets exactly one of several concurrent creates with one e-mail win; the others get 409', async () => {
    const json = { name: 'Race', email: `race.${dialect}@example.com`, role: 'Participant' };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => server.call('POST', '/v1/users', { token, json })),
    );
    expect(results.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('updates only the given fields: 200 without a body', async () => {
    const created = await server.call('POST', '/v1/users', {
      token,
      json: { name: 'Emmy Noether', email: 'emmy@example.com', role: 'Participant', title: 'Professor' },
    });
    const id = created.body.id;
    server.clock.advance(1000);
    const res = await server.call('PUT', `/v1/users/${id}`, {
      token,
      json: { phone: '+49 000', roleId: 9007199254740991 },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const read = await server.call('GET', `/v1/users/${id}`, { token });
    expect(read.body).toMatchObject({
      name: 'Emmy Noether',
      title: 'Professor',
      phone: '+49 000',
      role: 'Participant',
    });
    expect(read.body.updatedAt).not.toBe(read.body.createdAt);
    const empty = await server.call('PUT', `/v1/users/${id}`, { token, json: {} });
    expect(empty.status).toBe(200);
    const bad = await server.call('PUT', `/v1/users/${id}`, { token, json: { role: 'Emperor' } });
    expect(bad.status).toBe(400);
    const conflict = await server.call('PUT', `/v1/users/${id}`, { token, json: { email: euler.email } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toBe(`A user with e-mail ${euler.email} already exists.`);
    const unchanged = await server.call('GET', `/v1/users/${id}`, { token });
    expect(unchanged.body.email).toBe('emmy@example.com');
    // Its own address, in another case, is no conflict.
    const recased = await server.call('PUT', `/v1/users/${id}`, {
      token,
      json: { email: 'Emmy@Example.com' },
    });
    expect(recased.status).toBe(200);
    expect((await server.call('PUT', '/v1/users/987654', { token, json: {} })).status).toBe(404);
  });

  it('deletes: 204, then GET returns the deleted subset, DELETE again 404, not listed', async () => {
    const created = await server.call('POST', '/v1/users', {
      token,
      json: { name: 'Carl Gauss', email: 'gauss@example.com', role: 'Participant' },
    });
    const id = created.body.id;
    // As generic clients send it: a JSON Content-Type on every request, and no body.
    const del = await server.call('DELETE', `/v1/users/${id}`, {
      token,
      headers: { 'content-type': 'application/json' },
    });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const read = await server.call('GET', `/v1/users/${id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, deleted: true, name: 'Carl Gauss' });
    expect((await server.call('DELETE', `/v1/users/${id}`, { token })).status).toBe(404);
    expect((await server.call('PUT', `/v1/users/${id}`, { token, json: { name: 'Z' } })).status).toBe(404);
    const list = await server.call('GET', '/v1/users?limit=500', { token });
    expect(list.body.map((u: { id: number }) => u.id)).not.toContain(id);
  });

  it('refuses to delete the user an API client acts as (409)', async () => {
    const res = await server.call('DELETE', `/v1/users/${server.client.userId}`, { token });
    expect(res.status).toBe(409);
  });

  it('answers 404 for ids that never existed and 400 for ids that are not ids', async () => {
    expect((await server.call('GET', '/v1/users/424242', { token })).status).toBe(404);
    expect((await server.call('GET', '/v1/users/99999999999999', { token })).status).toBe(404);
    expect((await server.call('GET', '/v1/users/abc', { token })).status).toBe(400);
    expect((await server.call('GET', '/v1/users/0', { token })).status).toBe(400);
  });

  it('lists summaries by id with limit/offset; [] past the end; limit capped at 500', async () => {
    const all = await server.call('GET', '/v1/users', { token });
    expect(all.status).toBe(200);
    const ids = all.body.map((u: { id: number }) => u.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const summary of all.body)
      expect(
        Object.keys(summary).every((k) => ['id', 'name', 'email', 'role', 'title', 'phone'].includes(k)),
      ).toBe(true);
    const page = await server.call('GET', '/v1/users?limit=1&offset=1', { token });
    expect(page.body.map((u: { id: number }) => u.id)).toEqual([ids[1]]);
    const past = await server.call('GET', '/v1/users?limit=500&offset=500', { token });
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    expect((await server.call('GET', '/v1/users?limit=501', { token })).status).toBe(400);
    expect((await server.call('GET', '/v1/users?limit=abc', { token })).status).toBe(400);
    expect((await server.call('GET', '/v1/users?offset=-1', { token })).status).toBe(400);
  });
});
