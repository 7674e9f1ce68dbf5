// What the repository's contract runs share: where reports go, and the seed (fixed so CI is
// reproducible; CONTRACT_TESTS_SEED=random or a number picks another — printed either way).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomSeed } from '../../src/index.js';

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-results');

const DEFAULT_SEED = 20261123;

export function testSeed(): number {
  const wanted = process.env.CONTRACT_TESTS_SEED;
  const seed = wanted === 'random' ? randomSeed() : wanted ? Number(wanted) : DEFAULT_SEED;
  console.log(`contract runs use seed ${seed} (CONTRACT_TESTS_SEED=${seed} reproduces them)`);
  return seed;
}
