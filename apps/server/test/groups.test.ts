import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './helpers/databases.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describeEachDialect('groups on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let userId: number;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    token = await server.token(['user']);
    userId = (
      await server.call('POST', '/v1/users', {
        token,
        json: { name: 'Ada', email: 'ada@example.com', role: 'Participant' },
      })
    ).body.id;
  });
  afterAll(async () => server?.close());

  it('creates a group (201 + Location) with lenient "active" and reads it back', async () => {
    const res = await server.call('POST', '/v1/groups/', {
      token,
      json: { name: 'Groupy Group', default: false, active: 'true' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/groups/${res.body.id}`);
    expect(res.body).toMatchObject({
      name: 'Groupy Group',
      active: true,
      default: false,
      memberCount: 0,
      creatorId: String(server.client.userId),
    });
    const read = await server.call('GET', `/v1/groups/${res.body.id}`, { token });
    expect(read.body).toMatchObject({ id: res.body.id, name: 'Groupy Group', memberCount: 0 });
    expect((await server.call('POST', '/v1/groups', { token, json: { name: 'groupy group' } })).status).toBe(
      409,
    );
    expect((await server.call('POST', '/v1/groups', { token, json: { name: '' } })).status).toBe(400);
    expect(
      (await server.call('POST', '/v1/groups', { token, json: { name: 'X', active: 'yes' } })).status,
    ).toBe(400);
  });

  it('manages members: PUT (with or without {} body) → 204, list of ids, DELETE → 204', async () => {
    const group = (await server.call('POST', '/v1/groups', { token, json: { name: 'Members' } })).body;
    expect(
      (await server.call('PUT', `/v1/groups/${group.id}/users/${userId}`, { token, json: {} })).status,
    ).toBe(204);
    expect(
      (await server.call('PUT', `/v1/groups/${group.id}/users/${server.client.userId}`, { token })).status,
    ).toBe(204);
    expect((await server.call('PUT', `/v1/groups/${group.id}/users/${userId}`, { token })).status).toBe(204);
    const members = await server.call('GET', `/v1/groups/${group.id}/users`, { token });
    expect(members.body).toEqual([server.client.userId, userId].sort((a, b) => a - b));
    expect(
      (await server.call('GET', `/v1/groups/${group.id}/users?limit=1&offset=5`, { token })).body,
    ).toEqual([]);
    expect((await server.call('GET', `/v1/groups/${group.id}`, { token })).body.memberCount).toBe(2);
    const listed = (await server.call('GET', '/v1/groups?limit=500', { token })).body as {
      id: number;
      memberCount: number;
    }[];
    expect(listed.find((item) => item.id === group.id)?.memberCount).toBe(2);
    const user = await server.call('GET', `/v1/users/${userId}`, { token });
    expect(user.body.groups).toContainEqual({ id: group.id, name: 'Members' });
    expect((await server.call('DELETE', `/v1/groups/${group.id}/users/${userId}`, { token })).status).toBe(
      204,
    );
    expect((await server.call('GET', `/v1/groups/${group.id}/users`, { token })).body).toEqual([
      server.client.userId,
    ]);
    expect((await server.call('PUT', `/v1/groups/${group.id}/users/777777`, { token })).status).toBe(404);
    expect((await server.call('PUT', `/v1/groups/777777/users/${userId}`, { token })).status).toBe(404);
  });

  it('adds new users to default groups', async () => {
    const group = (
      await server.call('POST', '/v1/groups', { token, json: { name: 'Everyone', default: true } })
    ).body;
    const created = await server.call('POST', '/v1/users', {
      token,
      json: { name: 'New', email: 'new@example.com', role: 'Participant' },
    });
    expect(created.body.groups).toContainEqual({ id: group.id, name: 'Everyone' });
  });

  it("lists a user's live groups by id, names exactly as stored, in the user's own read", async () => {
    const member = (
      await server.call('POST', '/v1/users', {
        token,
        json: { name: 'Member', email: 'member@example.com', role: 'Participant' },
      })
    ).body;
    const [zeta, deleted, kept] = await Promise.all(
      ['Zeta "quoted" \\ back\\slash', 'Ünïcødé — 日本 😀', 'Kept, with a comma'].map(
        async (name) =>
          (await server.call('POST', '/v1/groups', { token, json: { name } })).body as {
            id: number;
            name: string;
          },
      ),
    );
    if (!zeta || !deleted || !kept) throw new Error('three groups expected');
    const ids = [zeta.id, deleted.id, kept.id];
    // Joined in reverse order of ids; one group is deleted afterwards and must no longer be listed.
    for (const id of [...ids].sort((a, b) => b - a)) {
      await server.call('PUT', `/v1/groups/${id}/users/${member.id}`, { token });
    }
    expect((await server.call('DELETE', `/v1/groups/${deleted.id}`, { token })).status).toBe(204);
    const read = await server.call('GET', `/v1/users/${member.id}`, { token });
    const mine = read.body.groups.filter((g: { id: number }) => ids.includes(g.id));
    expect(mine).toEqual([zeta, kept].sort((a, b) => a.id - b.id).map(({ id, name }) => ({ id, name })));
  });

  it('updates (200 + group, omitted fields kept), lists summaries, deletes (then deleted subset)', async () => {
    const group = (await server.call('POST', '/v1/groups', { token, json: { name: 'Old name' } })).body;
    const updated = await server.call('PUT', `/v1/groups/${group.id}`, { token, json: { name: 'New name' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: group.id, name: 'New name', active: true });
    const deactivated = await server.call('PUT', `/v1/groups/${group.id}`, {
      token,
      json: { active: 'false' },
    });
    expect(deactivated.body).toMatchObject({ name: 'New name', active: false });
    const list = await server.call('GET', '/v1/groups', { token });
    expect(list.body.find((g: { id: number }) => g.id === group.id)).toEqual({
      id: group.id,
      name: 'New name',
      default: false,
      memberCount: 0,
    });
    expect((await server.call('GET', '/v1/groups?offset=1000', { token })).body).toEqual([]);
    expect((await server.call('DELETE', `/v1/groups/${group.id}`, { token })).status).toBe(204);
    const read = await server.call('GET', `/v1/groups/${group.id}`, { token });
    expect(read.body).toEqual({ id: group.id, name: 'New name', deleted: true });
    expect((await server.call('DELETE', `/v1/groups/${group.id}`, { token })).status).toBe(404);
    expect((await server.call('PUT', `/v1/groups/${group.id}`, { token, json: { name: 'x' } })).status).toBe(
      404,
    );
    expect((await server.call('GET', `/v1/groups/${group.id}/users`, { token })).status).toBe(404);
    expect((await server.call('GET', '/v1/groups/5555555', { token })).status).toBe(404);
  });
});
