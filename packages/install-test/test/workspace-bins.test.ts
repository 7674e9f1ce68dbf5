// A fresh clone's `pnpm install` links every workspace package's bins before anything is built: a bin that
// names a build output (dist/cli.js) is missing then, and pnpm warned "Failed to create bin … ENOENT" once per
// dependant. Every bin must be a file in git (a small shim that runs the build's output).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const tracked = new Set(
  execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' }).trim().split('\n'),
);

describe('workspace bins', () => {
  it('are committed files, linked without a build', () => {
    const bins: string[] = [];
    for (const group of ['apps', 'packages']) {
      for (const name of readdirSync(join(repoRoot, group))) {
        const manifest = join(group, name, 'package.json');
        if (!tracked.has(manifest)) continue;
        const { bin } = JSON.parse(readFileSync(join(repoRoot, manifest), 'utf8')) as {
          bin?: string | Record<string, string>;
        };
        for (const target of typeof bin === 'string' ? [bin] : Object.values(bin ?? {}))
          bins.push(posix.join(group, name, target));
      }
    }
    expect(bins).toContain('apps/server/bin/platform-server.mjs');
    expect(bins.filter((file) => !tracked.has(file))).toEqual([]);
  });
});
