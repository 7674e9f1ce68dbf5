// The README's "Memory" lines, run as a reader runs them against the mocks `npm start` starts (the CLI on
// both ports; only the ports differ): the user created reads back, is listed, and reads as deleted after
// its delete; the post created is listed.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, readmeBlock, type StartedProcess, startProcess } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShell } from './support/shell.js';

const mockDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const lines = readmeBlock(join(mockDir, 'README.md'), '## Memory', 'sh');
let mocks: StartedProcess;
let ports: { platform: number; site: number };

beforeAll(async () => {
  ports = { platform: await freePort(), site: await freePort() };
  mocks = await startProcess('the mocks (CLI)', process.execPath, [join(mockDir, 'dist', 'cli.js')], {
    env: { ...process.env, MOCK_PLATFORM_PORT: String(ports.platform), MOCK_SITE_PORT: String(ports.site) },
    ready: `http://127.0.0.1:${ports.site}/`,
  });
});
afterAll(() => mocks?.stop());

describe("the README's memory lines", () => {
  it('create a user, read it, list it, delete it; create a post and list it', async () => {
    expect(lines).toContain('localhost:4010');
    expect(lines).toContain('localhost:4011');
    const commands = lines
      .replaceAll('localhost:4010', `127.0.0.1:${ports.platform}`)
      .replaceAll('localhost:4011', `127.0.0.1:${ports.site}`);
    const result = await runShell(commands);
    expect(result.code, result.output).toBe(0);
    const [read, listed, deleted, post, posts] = result.output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(read).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(listed).toContainEqual(expect.objectContaining({ id: read.id, email: 'ada@example.com' }));
    expect(deleted).toMatchObject({ id: read.id, deleted: true });
    expect(post).toMatchObject({ title: { raw: 'Hello' }, status: 'publish' });
    expect(posts[0]).toMatchObject({ id: post.id });
  });
});
