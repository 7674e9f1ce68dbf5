import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './helpers/databases.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describeEachDialect('datasets on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    token = await server.token(['data']);
  });
  afterAll(async () => server?.close());

  const schema = {
    columns: [
      { type: 'STRING', name: 'Region' },
      { type: 'LONG', name: 'Units' },
      { type: 'DECIMAL', name: 'Revenue' },
      { type: 'DATE', name: 'Day' },
    ],
  };

  it('creates (201 + Location), reads, updates and deletes a dataset', async () => {
    const created = await server.call('POST', '/v1/datasets', { token, json: { name: 'Sales', schema } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/datasets/${created.body.id}`);
    expect(created.body).toMatchObject({
      name: 'Sales',
      rows: 0,
      columns: 4,
      schema,
      owner: { id: server.client.userId },
    });
    const id = created.body.id;
    const read = await server.call('GET', `/v1/datasets/${id}`, { token });
    expect(read.body).toMatchObject({ id, name: 'Sales', pdpEnabled: false });
    const updated = await server.call('PUT', `/v1/datasets/${id}`, { token, json: { name: 'Sales 2026' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Sales 2026', columns: 4 });
    expect((await server.call('DELETE', `/v1/datasets/${id}`, { token })).status).toBe(204);
    expect((await server.call('GET', `/v1/datasets/${id}`, { token })).body).toEqual({
      id,
      name: 'Sales 2026',
      deleted: true,
    });
    expect((await server.call('DELETE', `/v1/datasets/${id}`, { token })).status).toBe(404);
    expect(
      (await server.call('GET', '/v1/datasets/2f7fb1a5-6b3c-4a0e-9a4e-1c2d3e4f5a6b', { token })).status,
    ).toBe(404);
    expect((await server.call('GET', '/v1/datasets/not-a-uuid', { token })).status).toBe(400);
  });

  it("answers another instance's datasets like missing ones", async () => {
    const id = (await server.call('POST', '/v1/datasets', { token, json: { name: 'Private', schema } })).body
      .id;
    const other = await server.newClient('globex', ['data']);
    const otherToken = await server.token(['data'], other);
    for (const [method, path] of [
      ['GET', `/v1/datasets/${id}`],
      ['DELETE', `/v1/datasets/${id}`],
      ['GET', `/v1/datasets/${id}/data`],
    ] as const) {
      expect((await server.call(method, path, { token: otherToken })).status, `${method} ${path}`).toBe(404);
    }
    expect(
      (await server.call('PUT', `/v1/datasets/${id}/data`, { token: otherToken, csv: 'a,1,1,2026-01-01\n' }))
        .status,
    ).toBe(404);
    expect((await server.call('GET', '/v1/datasets', { token: otherToken })).body).toEqual([]);
    expect((await server.call('DELETE', `/v1/datasets/${id}`, { token })).status).toBe(204);
  });

  it('rejects invalid datasets', async () => {
    expect((await server.call('POST', '/v1/datasets', { token, json: { name: 'X' } })).status).toBe(400);
    const badType = await server.call('POST', '/v1/datasets', {
      token,
      json: { name: 'X', schema: { columns: [{ type: 'INTEGER', name: 'a' }] } },
    });
    expect(badType.status).toBe(400);
    expect(
      (await server.call('POST', '/v1/datasets', { token, json: { name: 'X', schema: { columns: [] } } }))
        .status,
    ).toBe(400);
  });

  it('imports CSV (204) and exports it with and without header', async () => {
    const id = (await server.call('POST', '/v1/datasets', { token, json: { name: 'Data', schema } })).body.id;
    const csv = 'Region,Units,Revenue,Day\r\n"North, upper",12,100.50,2026-01-01\nSouth,3,7,2026-01-02\n';
    const put = await server.call('PUT', `/v1/datasets/${id}/data`, { token, csv });
    expect(put.status).toBe(204);
    const plain = await server.call('GET', `/v1/datasets/${id}/data`, {
      token,
      headers: { accept: 'text/csv' },
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(plain.text).toBe('"North, upper",12,100.50,2026-01-01\nSouth,3,7,2026-01-02\n');
    const withHeader = await server.call('GET', `/v1/datasets/${id}/data?includeHeader=True`, { token });
    expect(withHeader.text.split('\n')[0]).toBe('Region,Units,Revenue,Day');
    expect((await server.call('GET', `/v1/datasets/${id}`, { token })).body.rows).toBe(2);
  });

  it('refuses CSV that does not fit the columns (409), malformed CSV (400) and non-CSV bodies (415)', async () => {
    const id = (await server.call('POST', '/v1/datasets', { token, json: { name: 'Strict', schema } })).body
      .id;
    const wrongCount = await server.call('PUT', `/v1/datasets/${id}/data`, { token, csv: 'a,1\n' });
    expect(wrongCount.status).toBe(409);
    expect(wrongCount.body.details[0].field).toBe('body.row 1');
    const wrongType = await server.call('PUT', `/v1/datasets/${id}/data`, {
      token,
      csv: 'x,notanumber,1,2026-01-01\n',
    });
    expect(wrongType.status).toBe(409);
    expect(wrongType.body.details[0].field).toBe('body.row 1.Units');
    const unclosed = await server.call('PUT', `/v1/datasets/${id}/data`, {
      token,
      csv: '"x,1,1,2026-01-01\n',
    });
    expect(unclosed.status).toBe(400);
    const json = await server.call('PUT', `/v1/datasets/${id}/data`, { token, json: { rows: [] } });
    expect(json.status).toBe(415);
  });

  it("takes each column type's fields as the spec's records rule allows, and names the misfit", async () => {
    const typed = {
      columns: ['STRING', 'LONG', 'DECIMAL', 'DOUBLE', 'DATE', 'DATETIME'].map((type) => ({
        type,
        name: type,
      })),
    };
    const id = (await server.call('POST', '/v1/datasets', { token, json: { name: 'Typed', schema: typed } }))
      .body.id;
    const put = (csv: string) => server.call('PUT', `/v1/datasets/${id}/data`, { token, csv });
    // What pandas writes: local date-times with a space, a column of midnights as dates; empty is no value.
    for (const record of [
      'a,-922337203685477580,1.5e10,.5,2024-02-29,2026-03-03 12:00:00',
      'b,+7,3.,2E-300,2026-12-31,2026-03-03',
      'c,,,,,2026-03-03T12:00:00.123456+01:00',
      ',0,0,0,2026-01-01,2026-03-03T23:59Z',
    ])
      expect((await put(`${record}\n`)).status, record).toBe(204);
    for (const [record, column] of [
      ['a,9223372036854775807,1,1,2026-01-01,2026-01-01', 'LONG'],
      ['a, 1,1,1,2026-01-01,2026-01-01', 'LONG'],
      ['a,1,1e1000,1,2026-01-01,2026-01-01', 'DECIMAL'],
      ['a,1,1,NaN,2026-01-01,2026-01-01', 'DOUBLE'],
      ['a,1,1,1,2026-02-30,2026-01-01', 'DATE'],
      ['a,1,1,1,2026-01-01,2026-13-01 10:00', 'DATETIME'],
      ['a,1,1,1,2026-01-01,March 3', 'DATETIME'],
    ] as const) {
      const refused = await put(`${record}\n`);
      expect(refused.status, record).toBe(409);
      expect(refused.body.details, record).toEqual([
        {
          field: `body.row 1.${column}`,
          message: expect.stringMatching(new RegExp(`^is not a ${column} value: `)),
        },
      ]);
    }
    expect((await server.call('DELETE', `/v1/datasets/${id}`, { token })).status).toBe(204);
  });

  it('lists with limit (max 50), offset, sort and nameLike', async () => {
    for (const name of ['Alpha', 'beta', 'Gamma_1']) {
      await server.call('POST', '/v1/datasets', { token, json: { name, schema } });
      server.clock.advance(1000);
    }
    const byName = await server.call('GET', '/v1/datasets?sort=name&nameLike=', { token });
    expect(byName.status).toBe(200);
    const names = byName.body.map((d: { name: string }) => d.name);
    expect(names).toEqual(['Alpha', 'beta', 'Data', 'Gamma_1', 'Strict']);
    const like = await server.call('GET', '/v1/datasets?nameLike=BET', { token });
    expect(like.body.map((d: { name: string }) => d.name)).toEqual(['beta']);
    const underscore = await server.call('GET', '/v1/datasets?nameLike=a_1', { token });
    expect(underscore.body.map((d: { name: string }) => d.name)).toEqual(['Gamma_1']);
    const newest = await server.call('GET', '/v1/datasets?sort=createdAt&limit=1', { token });
    expect(newest.body[0].name).toBe('Gamma_1');
    expect((await server.call('GET', '/v1/datasets?offset=999', { token })).body).toEqual([]);
    // pydomo asks for `limit` minus what it has when a page came back short: 0 is an empty page.
    const none = await server.call('GET', '/v1/datasets?limit=0&offset=3&nameLike=', { token });
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
    expect((await server.call('GET', '/v1/datasets?limit=51', { token })).status).toBe(400);
    expect((await server.call('GET', '/v1/datasets?sort=random', { token })).status).toBe(400);
  });
  it('appends with updateMethod=APPEND (concurrent appends keep every row), replaces by default', async () => {
    const id = (await server.call('POST', '/v1/datasets', { token, json: { name: 'Appended', schema } })).body
      .id;
    const path = `/v1/datasets/${id}/data`;
    expect((await server.call('PUT', path, { token, csv: 'North,1,1.5,2026-01-01\n' })).status).toBe(204);
    const appends = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        server.call('PUT', `${path}?updateMethod=APPEND`, { token, csv: `East,${i},2,2026-01-02\n` }),
      ),
    );
    expect(appends.map((res) => res.status)).toEqual(Array(8).fill(204));
    const lines = (await server.call('GET', path, { token })).text.trim().split('\n');
    expect(lines[0]).toBe('North,1,1.5,2026-01-01');
    expect(lines.slice(1).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `East,${i},2,2026-01-02`).sort(),
    );
    expect((await server.call('GET', `/v1/datasets/${id}`, { token })).body.rows).toBe(9);
    // A row that does not fit rejects the whole append; the data stays as it was.
    const bad = await server.call('PUT', `${path}?updateMethod=APPEND`, {
      token,
      csv: 'West,x,1,2026-01-03\n',
    });
    expect(bad.status).toBe(409);
    expect((await server.call('GET', `/v1/datasets/${id}`, { token })).body.rows).toBe(9);
    expect(
      (await server.call('PUT', `${path}?updateMethod=REPLACE`, { token, csv: 'South,2,3,2026-01-04\n' }))
        .status,
    ).toBe(204);
    expect((await server.call('GET', path, { token })).text).toBe('South,2,3,2026-01-04\n');
    expect((await server.call('PUT', `${path}?updateMethod=MERGE`, { token, csv: '' })).status).toBe(400);
  });
});
