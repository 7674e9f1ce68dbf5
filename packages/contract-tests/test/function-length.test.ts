import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionsLongerThan } from '@platform-api/test-support/function-lengths';
import { expect, it } from 'vitest';

// A function longer than a screenful hides its steps; past this many lines it is split into named ones.
const MAX_LINES = 100;

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

it(`keeps every function of src at most ${MAX_LINES} lines long`, () => {
  const long = functionsLongerThan(src, MAX_LINES).map(
    ({ where, name, lines }) => `${where} ${name} (${lines} lines)`,
  );
  expect(long).toEqual([]);
});
