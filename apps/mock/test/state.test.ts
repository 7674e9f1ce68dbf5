// The mock's memory, inferred from the spec alone: what a caller creates it can read, list, change and
// delete; tenants do not see each other; the limits hold; concurrent changes lose nothing; bad requests get
// the spec's 4xx. Every answer is checked against its spec by the one validator (support/exchange.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle, type OpenApiDocument, SpecValidator } from '@platform-api/validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockServer, startMock } from '../src/index.js';
import { inferModel } from '../src/state/model.js';
import { Schemas } from '../src/state/schemas.js';
import { seedsOf } from '../src/state/seeds.js';
import { basic, bearer, Conforming } from './support/exchange.js';
import { librarySpec } from './support/library-spec.js';

describe('a spec of its own: the engine is general', () => {
  const folder = mkdtempSync(join(tmpdir(), 'library-spec-'));
  const file = join(folder, 'library.openapi.json');
  writeFileSync(file, JSON.stringify(librarySpec));
  let mock: MockServer;
  const library = new Conforming(librarySpec as unknown as OpenApiDocument, () => mock.url);
  const mary = basic('mary', 'mary-secret');

  beforeAll(async () => {
    mock = await startMock({ bundle: file }, { port: 0 });
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('creates, reads, lists, changes and deletes an author', async () => {
    const created = await library.send('POST', '/authors', {
      headers: mary,
      body: { name: 'Ada Byron', born: 1815, pin: '1234' },
    });
    expect(created.status).toBe(201);
    const author = created.json as { id: number; name: string; createdAt: string };
    expect(author).toMatchObject({ name: 'Ada Byron', born: 1815 });
    // A write-only field is kept, never answered.
    expect(author).not.toHaveProperty('pin');
    expect(author.id).toBeGreaterThan(7); // after every example id
    expect(created.headers.get('location')).toBe(`${mock.url}/authors/${author.id}`);
    expect((await library.send('GET', `/authors/${author.id}`, { headers: mary })).json).toEqual(author);
    const listed = await library.send('GET', '/authors', { headers: mary });
    expect((listed.json as Array<{ id: number }>).map((item) => item.id)).toEqual([7, author.id]);
    const changed = await library.send('PATCH', `/authors/${author.id}`, {
      headers: mary,
      body: { born: 1816 },
    });
    expect(changed.json).toEqual({ ...author, born: 1816 });
    expect((await library.send('DELETE', `/authors/${author.id}`, { headers: mary })).status).toBe(204);
    expect((await library.send('GET', `/authors/${author.id}`, { headers: mary })).status).toBe(404);
    expect((await library.send('DELETE', `/authors/${author.id}`, { headers: mary })).status).toBe(404);
  });

  it('starts from the examples, pages with limit and offset, and refuses a taken unique name with 409', async () => {
    const example = await library.send('GET', '/authors/7', { headers: mary });
    expect(example.json).toMatchObject({ id: 7, name: 'Mary Shelley' });
    // The examples are not held to uniqueness: the documented request makes a second Mary Shelley.
    expect(
      (await library.send('POST', '/authors', { headers: mary, body: { name: 'Mary Shelley' } })).status,
    ).toBe(201);
    expect(
      (await library.send('POST', '/authors', { headers: mary, body: { name: 'Mary Shelley' } })).status,
    ).toBe(409);
    for (const name of ['A', 'B', 'C'])
      await library.send('POST', '/authors', { headers: mary, body: { name } });
    const page = await library.send('GET', '/authors?limit=2&offset=2', { headers: mary });
    expect((page.json as Array<{ name: string }>).map((item) => item.name)).toEqual(['A', 'B']);
    expect((await library.send('GET', '/authors?offset=50', { headers: mary })).json).toEqual([]);
  });

  it("keeps an author's books under the author, with the author's id, and drops them with it", async () => {
    const { id } = (await library.send('POST', '/authors', { headers: mary, body: { name: 'Bram Stoker' } }))
      .json as {
      id: number;
    };
    const created = await library.send('POST', `/authors/${id}/books`, {
      headers: mary,
      body: { title: 'Dracula', year: 1897 },
    });
    const book = created.json as { id: string; authorId: number };
    expect(book).toMatchObject({ authorId: id, title: 'Dracula', year: 1897 });
    expect(book.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await library.send('GET', `/authors/${id}/books`, { headers: mary })).json).toEqual({
      books: [book],
    });
    // PUT answers no body (as documented) and changes only what it sends.
    const replaced = await library.send('PUT', `/authors/${id}/books/${book.id}`, {
      headers: mary,
      body: { title: 'Dracula (1897)' },
    });
    expect([replaced.status, replaced.text]).toEqual([200, '']);
    expect((await library.send('GET', `/authors/${id}/books/${book.id}`, { headers: mary })).json).toEqual({
      ...book,
      title: 'Dracula (1897)',
    });
    // Another author has none of them; an unknown author has no books at all.
    expect((await library.send('GET', `/authors/7/books/${book.id}`, { headers: mary })).status).toBe(404);
    expect((await library.send('GET', '/authors/999999/books', { headers: mary })).status).toBe(404);
    expect(
      (await library.send('POST', '/authors/999999/books', { headers: mary, body: { title: 'X' } })).status,
    ).toBe(404);
    await library.send('DELETE', `/authors/${id}`, { headers: mary });
    expect((await library.send('GET', `/authors/${id}/books/${book.id}`, { headers: mary })).status).toBe(
      404,
    );
  });

  it("keeps a shelf's members (ids) and an author's bio (plain text)", async () => {
    const shelf = (await library.send('POST', '/shelves', { headers: mary, body: { label: 'Horror' } }))
      .json as { id: number };
    const bookId = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect((await library.send('GET', `/shelves/${shelf.id}/books`, { headers: mary })).json).toEqual([]);
    expect(
      (await library.send('PUT', `/shelves/${shelf.id}/books/${bookId}`, { headers: mary })).status,
    ).toBe(204);
    expect((await library.send('GET', `/shelves/${shelf.id}/books`, { headers: mary })).json).toEqual([
      bookId,
    ]);
    expect(
      (await library.send('DELETE', `/shelves/${shelf.id}/books/${bookId}`, { headers: mary })).status,
    ).toBe(204);
    expect(
      (await library.send('DELETE', `/shelves/${shelf.id}/books/${bookId}`, { headers: mary })).status,
    ).toBe(404);
    expect((await library.send('GET', `/shelves/${shelf.id}/books`, { headers: mary })).json).toEqual([]);
    expect((await library.send('GET', '/authors/7/bio', { headers: mary })).text).toBe('Wrote Frankenstein.');
    await library.send('PUT', '/authors/7/bio', { headers: mary, body: 'Also wrote The Last Man.' });
    expect((await library.send('GET', '/authors/7/bio', { headers: mary })).text).toBe(
      'Also wrote The Last Man.',
    );
  });

  it('gives each user a state of its own', async () => {
    const percy = basic('percy', 'percy-secret');
    const { id } = (
      await library.send('POST', '/authors', { headers: mary, body: { name: 'John Polidori' } })
    ).json as {
      id: number;
    };
    expect((await library.send('GET', `/authors/${id}`, { headers: percy })).status).toBe(404);
    expect((await library.send('GET', '/authors', { headers: percy })).json).toEqual([
      expect.objectContaining({ id: 7 }),
    ]);
    // Mary's password is hers from her first request on.
    expect((await library.send('GET', '/authors', { headers: basic('mary', 'not-hers') })).status).toBe(401);
  });
});

describe('the platform mock remembers', () => {
  let mock: MockServer;
  const platform = new Conforming(loadBundle('platform'), () => mock.url);
  let auth: Record<string, string>;

  beforeAll(async () => {
    mock = await startMock('platform', { port: 0 });
    auth = await bearer(mock.url, `platform-${process.pid}`);
  });
  afterAll(() => mock?.close());

  it('creates a user, reads it back with its e-mail, lists it, deletes it and reads the deleted form', async () => {
    const email = `grace.hopper.${Date.now()}@example.com`;
    const created = await platform.send('POST', '/v1/users?sendInvite=false', {
      headers: auth,
      body: {
        name: 'Grace Hopper',
        email,
        role: 'Admin',
        timezone: 'America/New_York',
        employeeNumber: '1906',
      },
    });
    expect(created.status).toBe(201);
    const user = created.json as Record<string, unknown>;
    // Create never answers the time zone (CreatedUser); a numeric string employee number comes back an integer.
    expect(user).toMatchObject({ name: 'Grace Hopper', email, role: 'Admin', employeeNumber: 1906 });
    expect(user).not.toHaveProperty('timezone');
    expect(created.headers.get('location')).toBe(`${mock.url}/v1/users/${user.id}`);
    const read = (await platform.send('GET', `/v1/users/${user.id}`, { headers: auth })).json;
    expect(read).toMatchObject({ id: user.id, email, timezone: 'America/New_York' });
    const listed = (await platform.send('GET', '/v1/users?limit=500', { headers: auth })).json as Array<{
      id: number;
    }>;
    expect(listed.map((item) => item.id)).toContain(user.id);
    // An update changes what it sends; a field left out keeps its value.
    expect(
      (await platform.send('PUT', `/v1/users/${user.id}`, { headers: auth, body: { title: 'Rear Admiral' } }))
        .status,
    ).toBe(200);
    expect((await platform.send('GET', `/v1/users/${user.id}`, { headers: auth })).json).toMatchObject({
      title: 'Rear Admiral',
      email,
    });
    expect((await platform.send('DELETE', `/v1/users/${user.id}`, { headers: auth })).status).toBe(204);
    const deleted = await platform.send('GET', `/v1/users/${user.id}`, { headers: auth });
    expect(deleted.json).toMatchObject({ id: user.id, deleted: true });
    expect((await platform.send('GET', '/v1/users?limit=500', { headers: auth })).json).not.toContainEqual(
      expect.objectContaining({ id: user.id }),
    );
    expect((await platform.send('DELETE', `/v1/users/${user.id}`, { headers: auth })).status).toBe(404);
    expect(
      (await platform.send('PUT', `/v1/users/${user.id}`, { headers: auth, body: { title: 'x' } })).status,
    ).toBe(404);
  });

  it('answers the examples for the example ids, and 404 in the error shape for an unknown one', async () => {
    expect((await platform.send('GET', '/v1/users/964382593', { headers: auth })).json).toMatchObject({
      name: 'Leonhard Euler',
    });
    const missing = await platform.send('GET', '/v1/users/12345', { headers: auth });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ status: 404, path: '/v1/users/12345' });
  });

  it('refuses a second user with the same e-mail (letter case aside) with 409', async () => {
    const email = `ada.${Date.now()}@example.com`;
    const body = { name: 'Ada', email, role: 'Participant' };
    expect((await platform.send('POST', '/v1/users', { headers: auth, body })).status).toBe(201);
    const again = await platform.send('POST', '/v1/users', {
      headers: auth,
      body: { ...body, email: email.toUpperCase() },
    });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ status: 409, path: '/v1/users' });
  });

  it("keeps a group's members and a dataset's rows", async () => {
    const group = (
      await platform.send('POST', '/v1/groups', { headers: auth, body: { name: `g ${Date.now()}` } })
    ).json as { id: number };
    const members = `/v1/groups/${group.id}/users`;
    expect((await platform.send('PUT', `${members}/964382593`, { headers: auth, body: {} })).status).toBe(
      204,
    );
    expect((await platform.send('GET', members, { headers: auth })).json).toEqual([964382593]);
    // Counts follow what they count (x-state: {count}).
    const groupPath = `/v1/groups/${group.id}`;
    expect((await platform.send('GET', groupPath, { headers: auth })).json).toMatchObject({ memberCount: 1 });
    expect((await platform.send('PUT', `${members}/12345`, { headers: auth, body: {} })).status).toBe(404);
    expect((await platform.send('DELETE', `${members}/964382593`, { headers: auth })).status).toBe(204);
    expect((await platform.send('GET', members, { headers: auth })).json).toEqual([]);
    expect((await platform.send('GET', groupPath, { headers: auth })).json).toMatchObject({ memberCount: 0 });

    // A dataset of a STRING and a LONG column, named as given.
    const createDataset = async (name: string, [text, number]: [string, string]) =>
      (
        await platform.send('POST', '/v1/datasets', {
          headers: auth,
          body: {
            name,
            schema: {
              columns: [
                { type: 'STRING', name: text },
                { type: 'LONG', name: number },
              ],
            },
          },
        })
      ).json as { id: string };
    const dataset = await createDataset('Friends', ['Friend', 'Age']);
    const data = `/v1/datasets/${dataset.id}/data`;
    const csv = { headers: auth, contentType: 'text/csv' };
    expect((await platform.send('PUT', data, { ...csv, body: 'Ada,36\n' })).status).toBe(204);
    expect(
      (await platform.send('PUT', `${data}?updateMethod=APPEND`, { ...csv, body: 'Alan,41\n' })).status,
    ).toBe(204);
    // Records that do not fit the dataset's columns (x-state: {records}) conflict with it, text that is
    // not CSV is refused as such; neither changes the data.
    for (const misfit of ['Ada,36,more\n', 'Ada,thirty-six\n', 'Ada,36\nGrace\n'])
      expect((await platform.send('PUT', data, { ...csv, body: misfit })).status).toBe(409);
    expect((await platform.send('PUT', data, { ...csv, body: '"Ada,36\n' })).status).toBe(400);
    const exported = await platform.send('GET', `${data}?includeHeader=true`, {
      headers: { ...auth, accept: 'text/csv' },
    });
    expect(exported.text).toBe('Friend,Age\nAda,36\nAlan,41\n');
    // An Accept the operation answers nothing in gets what it answers, as the servers do (not Prism's 406).
    const asJson = await platform.send('GET', data, { headers: { ...auth, accept: 'application/json' } });
    expect([asJson.status, asJson.headers.get('content-type')]).toEqual([200, 'text/csv']);
    const datasetPath = `/v1/datasets/${dataset.id}`;
    expect((await platform.send('GET', datasetPath, { headers: auth })).json).toMatchObject({
      rows: 2,
      columns: 2,
    });
    // The header line is a CSV record too: names with a quote or a comma are quoted.
    const quoted = await createDataset('Quoted', ['say "hi"', 'a,b']);
    const quotedData = `/v1/datasets/${quoted.id}/data`;
    expect((await platform.send('PUT', quotedData, { ...csv, body: 'x,1\n' })).status).toBe(204);
    const withHeader = await platform.send('GET', `${quotedData}?includeHeader=true`, {
      headers: { ...auth, accept: 'text/csv' },
    });
    expect(withHeader.text).toBe('"say ""hi""","a,b"\nx,1\n');
    // An empty CSV is a CSV without rows.
    expect((await platform.send('PUT', data, { ...csv, body: '' })).status).toBe(204);
    expect((await platform.send('GET', data, { headers: { ...auth, accept: 'text/csv' } })).text).toBe('');
  });

  it("keeps an integration's subscriptions under it, and drops them with it", async () => {
    const integration = (
      await platform.send('POST', '/v1/chat/integrations', {
        headers: auth,
        body: { name: 'Bot', scope: 'PUBLIC_CHANNELS', headers: [] },
      })
    ).json as { id: string };
    const subscriptions = `/v1/chat/integrations/${integration.id}/subscriptions`;
    const subscription = (
      await platform.send('POST', subscriptions, {
        headers: auth,
        body: { eventType: 'SLASH_COMMAND', url: 'https://bots.example.com/deploy', slashCommand: 'deploy' },
      })
    ).json as { id: string; slashCommand: string };
    // Stored with its leading slash, as the spec reads it back.
    expect(subscription.slashCommand).toBe('/deploy');
    expect((await platform.send('GET', subscriptions, { headers: auth })).json).toEqual({
      subscriptions: [subscription],
    });
    expect(
      (await platform.send('DELETE', `/v1/chat/integrations/${integration.id}`, { headers: auth })).status,
    ).toBe(204);
    expect((await platform.send('GET', subscriptions, { headers: auth })).status).toBe(404);
  });

  it('loses no change made at the same time to one user', async () => {
    const user = (
      await platform.send('POST', '/v1/users', {
        headers: auth,
        body: { name: 'Concurrent', email: `c.${Date.now()}@example.com`, role: 'Participant' },
      })
    ).json as { id: number };
    const fields = ['title', 'phone', 'location', 'timezone', 'locale'] as const;
    await Promise.all(
      fields.map((field) =>
        platform.send('PUT', `/v1/users/${user.id}`, { headers: auth, body: { [field]: `${field} set` } }),
      ),
    );
    const read = (await platform.send('GET', `/v1/users/${user.id}`, { headers: auth })).json as Record<
      string,
      unknown
    >;
    for (const field of fields) expect(read[field], field).toBe(`${field} set`);
  });

  it('answers malformed and hostile requests with the documented 4xx, never a 5xx', async () => {
    const json = { ...auth, 'content-type': 'application/json' };
    const requests: Array<[string, string, RequestInit['body'] | undefined, Record<string, string>]> = [
      ['POST', '/v1/users', '{"name": ', json],
      ['POST', '/v1/users', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), json],
      ['POST', '/v1/users', 'null', json],
      ['POST', '/v1/users', '[]', json],
      ['POST', '/v1/users', JSON.stringify({ name: 'x', email: 'not an e-mail', role: 'King' }), json],
      ['PUT', '/v1/users/964382593', JSON.stringify({ role: 7 }), json],
      ['POST', '/v1/users', `{"name":"${'x'.repeat(1_100_000)}"}`, json],
      ['GET', '/v1/users/abc', undefined, auth],
      ['GET', '/v1/users/99999999999999999999999', undefined, auth],
      ['GET', '/v1/users?limit=-1', undefined, auth],
      ['GET', '/v1/users?limit=%00', undefined, auth],
      ['PUT', '/v1/datasets/not-a-uuid/data', 'a,b', { ...auth, 'content-type': 'text/csv' }],
      ['DELETE', '/v1/groups/876655018/users/0', undefined, auth],
      ['GET', '/v1/users', undefined, { authorization: 'bearer not-a-token' }],
      ['GET', '/v1/users', undefined, { authorization: 'Basic Og==' }],
    ];
    for (const [method, path, body, headers] of requests) {
      const answer = await platform.send(
        method,
        path,
        body === undefined
          ? { headers }
          : { headers, body: body as string, contentType: headers['content-type'] },
      );
      expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('tenants and control', () => {
  let mock: MockServer;
  const platform = new Conforming(loadBundle('platform'), () => mock.url);

  beforeAll(async () => {
    // Room for the examples and three more items a tenant.
    mock = await startMock('platform', { port: 0, maxItems: seedCount() + 3 });
  });
  afterAll(() => mock?.close());

  it("keeps each client's state to itself, and a token to its scopes", async () => {
    const alice = await bearer(mock.url, 'alice');
    const bob = await bearer(mock.url, 'bob');
    const user = (
      await platform.send('POST', '/v1/users', {
        headers: alice,
        body: { name: 'A', email: 'a@example.com', role: 'Admin' },
      })
    ).json as { id: number };
    expect((await platform.send('GET', `/v1/users/${user.id}`, { headers: bob })).status).toBe(404);
    expect((await platform.send('DELETE', `/v1/users/${user.id}`, { headers: bob })).status).toBe(404);
    expect((await platform.send('GET', `/v1/users/${user.id}`, { headers: alice })).status).toBe(200);
    // Bob may use the same e-mail: uniqueness is within a tenant.
    expect(
      (
        await platform.send('POST', '/v1/users', {
          headers: bob,
          body: { name: 'B', email: 'a@example.com', role: 'Admin' },
        })
      ).status,
    ).toBe(201);
    const dataOnly = await bearer(mock.url, 'alice', 'data');
    const refused = await platform.send('GET', `/v1/users/${user.id}`, { headers: dataOnly });
    expect([refused.status, (refused.json as { error: string }).error]).toEqual([403, 'insufficient_scope']);
    const wrongSecret = await fetch(`${mock.url}/oauth/token?grant_type=client_credentials`, {
      headers: basic('alice', 'not-alices-secret'),
    });
    expect(wrongSecret.status).toBe(401);
    const madeUp = await platform.send('GET', '/v1/users', {
      headers: { authorization: 'Bearer made.up.token' },
    });
    expect([madeUp.status, (madeUp.json as { error?: string }).error]).toEqual([401, 'invalid_token']);
  });

  it('empties a tenant on POST /__mock/reset, and keeps at most maxItems a tenant, the oldest dropped', async () => {
    const carol = await bearer(mock.url, 'carol');
    const ids: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const created = await platform.send('POST', '/v1/users', {
        headers: carol,
        body: { name: `C${i}`, email: `c${i}@example.com`, role: 'Participant' },
      });
      ids.push((created.json as { id: number }).id);
    }
    // Four made, room for three: the oldest item of the tenant went (an example), not the new ones.
    for (const id of ids)
      expect((await platform.send('GET', `/v1/users/${id}`, { headers: carol })).status).toBe(200);
    const reset = await fetch(`${mock.url}/__mock/reset`, { method: 'POST', headers: carol });
    expect(reset.status).toBe(204);
    for (const id of ids)
      expect((await platform.send('GET', `/v1/users/${id}`, { headers: carol })).status).toBe(404);
    expect((await platform.send('GET', '/v1/users/964382593', { headers: carol })).status).toBe(200);
    const anonymous = await fetch(`${mock.url}/__mock/reset`, {
      method: 'POST',
      headers: { authorization: 'Bearer x' },
    });
    expect(anonymous.status).toBe(401);
  });

  it('starts empty after a restart: the tokens of the last run are refused', async () => {
    const dave = await bearer(mock.url, 'dave');
    const again = await startMock('platform', { port: 0 });
    try {
      const answer = await fetch(`${again.url}/v1/users`, { headers: dave });
      expect(answer.status).toBe(401);
    } finally {
      await again.close();
    }
  });
});

describe('the site mock remembers', () => {
  let mock: MockServer;
  const site = new Conforming(loadBundle('site'), () => mock.url);
  const admin = basic('admin', 'admin-app-password');

  beforeAll(async () => {
    mock = await startMock('site', { port: 0 });
  });
  afterAll(() => mock?.close());

  it('creates a post, reads it, lists it, updates it, trashes it and deletes it for good', async () => {
    const created = await site.send('POST', '/wp-json/wp/v2/posts', {
      headers: admin,
      body: { title: 'Hello from the mock', content: 'First words.', status: 'publish' },
    });
    expect(created.status).toBe(201);
    const post = created.json as { id: number; title: { raw: string; rendered: string }; date: string };
    expect(post.title).toEqual({ raw: 'Hello from the mock', rendered: 'Hello from the mock' });
    expect(post.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(created.headers.get('location')).toBe(`${mock.url}/wp-json/wp/v2/posts/${post.id}`);
    expect(
      (await site.send('GET', `/wp-json/wp/v2/posts/${post.id}`, { headers: admin })).json,
    ).toMatchObject({
      id: post.id,
      title: post.title,
    });
    const listed = await site.send('GET', '/wp-json/wp/v2/posts?per_page=1', { headers: admin });
    // Newest first; two posts (the example's and this one) in pages of one.
    expect((listed.json as Array<{ id: number }>)[0]?.id).toBe(post.id);
    expect([listed.headers.get('x-wp-total'), listed.headers.get('x-wp-totalpages')]).toEqual(['2', '2']);
    expect(listed.headers.get('link')).toBe(
      `<${mock.url}/wp-json/wp/v2/posts?per_page=1&page=2>; rel="next"`,
    );
    const past = await site.send('GET', '/wp-json/wp/v2/posts?per_page=1&page=3', { headers: admin });
    expect([past.status, (past.json as { code: string }).code]).toEqual([
      400,
      'rest_post_invalid_page_number',
    ]);
    const updated = await site.send('POST', `/wp-json/wp/v2/posts/${post.id}`, {
      headers: admin,
      body: { title: { raw: 'Better title' } },
    });
    expect(updated.json).toMatchObject({
      title: { raw: 'Better title', rendered: 'Better title' },
      content: { raw: 'First words.' },
    });
    const trashed = await site.send('DELETE', `/wp-json/wp/v2/posts/${post.id}`, { headers: admin });
    expect(trashed.json).toMatchObject({ id: post.id, status: 'trash' });
    expect((await site.send('DELETE', `/wp-json/wp/v2/posts/${post.id}`, { headers: admin })).status).toBe(
      410,
    );
    // Trashed posts leave the default list (status publish), and come back when asked for.
    expect(
      (await site.send('GET', '/wp-json/wp/v2/posts', { headers: admin })).headers.get('x-wp-total'),
    ).toBe('1');
    expect((await site.send('GET', '/wp-json/wp/v2/posts?status=trash', { headers: admin })).json).toEqual([
      expect.objectContaining({ id: post.id }),
    ]);
    const deleted = await site.send('DELETE', `/wp-json/wp/v2/posts/${post.id}?force=true`, {
      headers: admin,
    });
    expect(deleted.json).toMatchObject({ deleted: true, previous: { id: post.id } });
    expect((await site.send('GET', `/wp-json/wp/v2/posts/${post.id}`, { headers: admin })).status).toBe(404);
  });

  it('refuses to trash what has no trash (501), and names the parameter it refuses', async () => {
    expect((await site.send('DELETE', '/wp-json/wp/v2/media/13', { headers: admin })).status).toBe(501);
    const refused = await site.send('GET', '/wp-json/wp/v2/posts?orderby=nope', { headers: admin });
    expect(refused.json).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { orderby: expect.any(String) } },
    });
    expect((await site.send('GET', '/wp-json/UPPER/v1')).status).toBe(404);
  });

  it("keeps a visitor without credentials apart from the site's users", async () => {
    const created = (
      await site.send('POST', '/wp-json/wp/v2/pages', {
        headers: admin,
        body: { title: 'Private to admin', status: 'publish' },
      })
    ).json as { id: number };
    expect((await site.send('GET', `/wp-json/wp/v2/pages/${created.id}`)).status).toBe(404);
    expect((await site.send('GET', '/wp-json/wp/v2/pages')).json).toEqual([
      expect.objectContaining({ id: 7 }),
    ]);
  });
});

describe('what the model infers from the two specs', () => {
  it('finds the collections, their parents and members', () => {
    const platform = inferModel(new SpecValidator(loadBundle('platform')));
    expect(platform.collections.map((collection) => [collection.key, collection.parent?.key])).toEqual([
      ['/v1/users', undefined],
      ['/v1/groups', undefined],
      ['/v1/datasets', undefined],
      ['/v1/chat/channels', undefined],
      ['/v1/groups/{}/users', '/v1/groups'],
      ['/v1/chat/integrations', undefined],
      ['/v1/chat/channels/{}/messages', '/v1/chat/channels'],
      ['/v1/chat/integrations/{}/subscriptions', '/v1/chat/integrations'],
    ]);
    const members = platform.collections.find((collection) => collection.key === '/v1/groups/{}/users');
    expect([members?.members, members?.memberOf?.key]).toEqual([true, '/v1/users']);
    const roles = Object.fromEntries([...platform.operations].map(([id, model]) => [id, model.role.kind]));
    expect(roles).toMatchObject({
      createUser: 'create',
      getUser: 'read',
      updateUser: 'update',
      deleteUser: 'delete',
      listUsers: 'list',
      addGroupUser: 'add-member',
      removeGroupUser: 'remove-member',
      importDatasetData: 'write-data',
      exportDatasetData: 'read-data',
      joinChannel: 'action',
      getJsonWebKeySet: 'action',
    });
    const users = platform.collections.find((collection) => collection.key === '/v1/users');
    expect(users?.unique).toEqual([{ field: 'email', ignoreCase: true }]);
    expect(users?.keepsDeleted).toBe(true);

    const site = inferModel(new SpecValidator(loadBundle('site')));
    const softDelete = site.operations.get('deletePost')?.role;
    expect(softDelete).toMatchObject({
      kind: 'delete',
      softDelete: { unless: 'force', set: { status: 'trash' }, again: 410 },
    });
    expect(site.operations.get('deleteMedia')?.role).toMatchObject({
      softDelete: { unless: 'force', refuse: 501 },
    });
    expect(site.operations.get('createPostAutosave')?.role.kind).toBe('create');
  });
});

/** Items every platform tenant starts with: the examples. */
function seedCount(): number {
  const validator = new SpecValidator(loadBundle('platform'));
  return seedsOf(inferModel(validator), new Schemas(validator)).length;
}
