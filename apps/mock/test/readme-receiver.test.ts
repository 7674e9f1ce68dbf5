// The README's receiver (`receiver.mjs`) and its shell lines, as a reader runs them: in apps/mock, where
// `standardwebhooks` resolves, `trigger all --expect-post-back` delivers every event type, each verified,
// acknowledged and answered through its callback. Only where the receiver listens changes (a free port,
// not 8443), and the README's `sleep 1` becomes a wait until that port answers (a busy machine needs more).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, readmeBlock, startTimeoutMs } from '@platform-api/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatEvents } from '../src/events.js';
import { runShell } from './support/shell.js';

const mockDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = join(mockDir, 'README.md');
const heading = '## `trigger`: send chat events to your receiver';
// A folder of apps/mock (git-ignored), as `apps/mock` itself is to the reader: `standardwebhooks` resolves.
mkdirSync(join(mockDir, 'test-results'), { recursive: true });
const work = mkdtempSync(join(mockDir, 'test-results', 'receiver-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the README's receiver", () => {
  it('receives every event type from `trigger all --expect-post-back`, run as the README says', async () => {
    const port = await freePort();
    const script = readmeBlock(readme, heading, 'js');
    expect(script).toContain("import { Webhook } from 'standardwebhooks';");
    writeFileSync(join(work, 'receiver.mjs'), script.replaceAll('8443', String(port)));
    const lines = readmeBlock(readme, heading, 'sh', 1);
    expect(lines.split('\n')[0]).toBe('cd apps/mock');
    expect(lines).toContain('sleep 1');
    const waitUntilListening = `for i in $(seq 1 ${Math.ceil(startTimeoutMs() / 200)}); do (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && break; sleep 0.2; done`;
    // Whatever happens, the receiver the lines start in the background does not outlive them.
    const commands = `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${lines}`
      .replace('cd apps/mock', `cd '${work}'`)
      .replace(/^sleep 1.*$/m, waitUntilListening)
      .replaceAll('node dist/cli.js', `node '${join(mockDir, 'dist', 'cli.js')}'`)
      .replaceAll('8443', String(port));
    const result = await runShell(commands);
    expect(result.code, result.output).toBe(0);
    for (const type of new ChatEvents().types) {
      expect(result.output).toContain(`[${type}] post-back accepted (201)`);
      expect(result.output).toContain(`[${type}] ok`);
    }
  });
});
