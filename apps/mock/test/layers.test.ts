import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLayers } from '@platform-api/test-support';
import { expect, it } from 'vitest';

// The layer order of README.md ("Layers") against the imports of every file in src (test-support's checkLayers).
it('places every file of src in a layer, and no import points to a later layer or closes a cycle', () => {
  expect(checkLayers({ root: join(dirname(fileURLToPath(import.meta.url)), '..') })).toEqual({
    unplaced: [],
    empty: [],
    upward: [],
    missing: [],
    cycles: [],
  });
});
