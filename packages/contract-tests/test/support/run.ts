// What the repository's contract runs share: where reports go, and the seed (fixed so CI is
// reproducible, or fresh for the runs that must pass with any; CONTRACT_TESTS_SEED=random or a number
// picks another — printed either way).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Failure, randomSeed } from '../../src/index.js';

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-results');

/** Where a contract run of the repository's tests writes its reports: `test-results/<name>.*`. */
export function reportFiles(name: string) {
  const base = join(resultsDir, name);
  return { junit: `${base}.junit.xml`, html: `${base}.html`, matrix: `${base}.matrix.csv` };
}

const DEFAULT_SEED = 20261123;

export function testSeed(): number {
  const wanted = process.env.CONTRACT_TESTS_SEED;
  const seed = wanted === 'random' ? randomSeed() : wanted ? Number(wanted) : DEFAULT_SEED;
  console.log(`contract runs use seed ${seed} (CONTRACT_TESTS_SEED=${seed} reproduces them)`);
  return seed;
}

/**
 * A fresh random seed for a run that must hold whatever the seed (the mocks), unless CONTRACT_TESTS_SEED
 * names one; printed either way, with what it reproduces.
 */
export function freshSeed(run: string): number {
  const wanted = process.env.CONTRACT_TESTS_SEED ?? '';
  const seed = /^\d+$/.test(wanted) ? Number(wanted) : randomSeed();
  console.log(`${run}: seed ${seed} (CONTRACT_TESTS_SEED=${seed} reproduces it)`);
  return seed;
}

/** A failure as an assertion shows it: check, operation, message, the curl line and the answer. */
export function describeFailure(failure: Failure): string {
  return `${failure.check} ${failure.operationId}: ${failure.message}\n${failure.curl}\n→ ${failure.status} ${failure.excerpt}`;
}
