// What the repository's contract runs share: where reports go, and the seed (fixed so CI is
// reproducible; CONTRACT_TESTS_SEED=random or a number picks another — printed either way).
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
 * What the platform spec cannot express and the reference server rightly enforces: `createAccessToken`
 * needs `grant_type` in the query or the form body, so a request with neither (valid by each part's
 * schema) gets 400 `invalid_request`. The one exemption the repository's own runs use.
 */
export const PLATFORM_EXEMPTIONS = ['positive_data_acceptance:createAccessToken'];

/** A failure as an assertion shows it: check, operation, message, the curl line and the answer. */
export function describeFailure(failure: Failure): string {
  return `${failure.check} ${failure.operationId}: ${failure.message}\n${failure.curl}\n→ ${failure.status} ${failure.excerpt}`;
}
