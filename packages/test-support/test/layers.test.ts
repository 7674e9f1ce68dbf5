import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLayers } from '../src/layers.js';

/** A throwaway package: its README and its source files (path → text). */
function fixture(readme: string, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  roots.push(root);
  writeFileSync(join(root, 'README.md'), readme);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, 'src', path)), { recursive: true });
    writeFileSync(join(root, 'src', path), text);
  }
  return root;
}
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const README = `# pkg

## Layers

1. \`config.ts\`, \`util/\` — what every part uses
2. \`db/\` — the database
3. \`cli.ts\` — the process

## Next
`;

describe('checkLayers', () => {
  it('finds nothing wrong with source that keeps the order', () => {
    const root = fixture(README, {
      'config.ts': "import { x } from './util/x.js';\n",
      'util/x.ts': 'export const x = 1;\n',
      'db/store.ts': "import type { x } from '../util/x.js';\nexport { x } from '../config.js';\n",
      'cli.ts':
        "import './db/store.js';\nawait import('./config.js');\nimport { readFileSync } from 'node:fs';\n",
    });
    expect(checkLayers({ root })).toEqual({ unplaced: [], empty: [], upward: [], missing: [], cycles: [] });
  });

  it('names upward imports, missing files, unplaced files, empty layers and cycles', () => {
    const root = fixture(README, {
      'config.ts': "import { open } from './db/store.js';\n",
      'db/store.ts': "import { config } from '../config.js';\nimport { gone } from './gone.js';\n",
      'extra.ts': 'export {};\n',
      'cli.ts': '',
    });
    expect(checkLayers({ root })).toEqual({
      unplaced: ['extra.ts'],
      empty: ['util/'],
      upward: ['config.ts → db/store.ts'],
      missing: ['db/store.ts → db/gone.ts'],
      cycles: ['config.ts → db/store.ts → config.ts'],
    });
  });

  it('reads another section or source folder when told', () => {
    const root = fixture('## Order\n\n1. `a.ts` — a\n', { 'a.ts': '' });
    expect(() => checkLayers({ root })).toThrow('has no "## Layers" section');
    expect(checkLayers({ root, heading: 'Order' }).unplaced).toEqual([]);
    expect(() => checkLayers({ root, heading: 'Order', src: 'lib' })).toThrow(/ENOENT/);
  });
});
