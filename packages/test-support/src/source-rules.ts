// The rules every package's source keeps, registered as tests of the suite that calls them. Its own entry
// point (`@platform-api/test-support/source-rules`): the function lengths are read with the TypeScript
// compiler, which the calling package brings.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionsLongerThan } from './function-lengths.js';
import { checkLayers } from './layers.js';

/** A function longer than a screenful hides its steps; past this many lines it is split into named ones. */
export const MAX_FUNCTION_LINES = 100;

/**
 * Tests that the package at `root` keeps its README's layer order ("## Layers", checkLayers) in every import
 * of `src` — every file in a layer, no import of a later layer or of a missing file, no cycle — and that no
 * function of `src` is longer than MAX_FUNCTION_LINES.
 */
export function describeSourceRules(root: string): void {
  describe('the source of src (README.md, "Layers"; functions of a screenful)', () => {
    const layers = checkLayers({ root });

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

    it(`keeps every function at most ${MAX_FUNCTION_LINES} lines long`, () => {
      const long = functionsLongerThan(join(root, 'src'), MAX_FUNCTION_LINES).map(
        ({ where, name, lines }) => `${where} ${name} (${lines} lines)`,
      );
      expect(long).toEqual([]);
    });
  });
}
