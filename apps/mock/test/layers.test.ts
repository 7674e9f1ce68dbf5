import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLayers } from '@platform-api/test-support';
import { describe, expect, it } from 'vitest';

/*
 * The layer order of apps/mock/README.md ("Layers"), checked against the imports of every file in src:
 * none may point to a later layer, and none may close a cycle (test-support's checkLayers).
 */

const layers = checkLayers({ root: join(dirname(fileURLToPath(import.meta.url)), '..') });

describe('the layers of src (README.md, "Layers")', () => {
  it('places every file of src in a layer, and lists no layer without files', () => {
    expect(layers.unplaced).toEqual([]);
    expect(layers.empty).toEqual([]);
  });

  it('has every import point to the same layer or one before it', () => {
    expect(layers.upward).toEqual([]);
  });

  it('imports only files that exist', () => {
    expect(layers.missing).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(layers.cycles).toEqual([]);
  });
});
