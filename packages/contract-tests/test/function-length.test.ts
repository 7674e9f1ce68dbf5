import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { functionsLongerThan } from './support/function-lengths.js';

// A function longer than a screenful hides its steps; past this many lines it is split into named ones.
const MAX_LINES = 100;

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

describe('the functions of src', () => {
  it(`are each at most ${MAX_LINES} lines long`, () => {
    const long = functionsLongerThan(src, MAX_LINES).map(
      ({ where, name, lines }) => `${where} ${name} (${lines} lines)`,
    );
    expect(long).toEqual([]);
  });
});
