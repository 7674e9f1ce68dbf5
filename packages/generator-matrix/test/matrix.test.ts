// The code generators teams use, on the published bundles (issue 24): for each generator × bundle, does
// it generate, does the output compile, and — for a Python client (openapi-generator `python`) and a Go
// client (oapi-codegen) from the platform bundle — does the generated client walk the reference server as
// pydomo does. Prints the matrix and fails when docs/guides/generators.md shows another one;
// UPDATE_GENERATOR_MATRIX=1 writes the measured matrix into the page instead.
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type ReferenceServer, startReferenceServer, unavailable } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCell } from './support/cells.js';
import { BUNDLES, GENERATORS } from './support/generators.js';
import { KNOWN_FAILURES, mustPass } from './support/known-failures.js';
import { documentedMatrix, Matrix, writeDocumentedMatrix } from './support/matrix.js';
import { packageDir, prepareToolchains } from './support/toolchains.js';
import { WALKS, type WalkTarget, walkFixtures, walkProblems, walkSteps } from './support/walks.js';

const require = createRequire(import.meta.url);
const serverCli = join(dirname(require.resolve('@platform-api/server')), 'cli.js');
const docsPage = resolve(packageDir, '../../docs/guides/generators.md');

// Prepared at collection, as the Python SDK's venv is: what is missing must be known to register its
// cells as failing (CI=true) or loudly skipped.
const tools = await prepareToolchains();
const missing = Object.entries(tools).flatMap(([name, toolchain]) =>
  toolchain.available ? [] : [`${name}: ${toolchain.reason}`],
);
for (const [name, toolchain] of Object.entries(tools)) {
  if (!toolchain.available) unavailable(`generator matrix (${name} toolchain)`, toolchain.reason);
}

const matrix = new Matrix();

let server: ReferenceServer | undefined;
let credentials: Omit<WalkTarget, 'fixtures'> | undefined;
beforeAll(async () => {
  server = await startReferenceServer(serverCli);
  credentials = {
    baseUrl: server.url,
    ...(await server.createClient('generated-clients', ['user', 'data'])),
  };
});
afterAll(() => server?.close());

describe.each(BUNDLES)('$name', (bundle) => {
  for (const generator of GENERATORS) {
    if (generator.needs.some((name) => !tools[name].available)) continue;
    it(generator.label, async () => {
      const cell = { bundle, out: mkdtempSync(join(tmpdir(), `${generator.id}-`)), tools };
      const walk =
        bundle.name === 'platform-portable' ? WALKS.find((w) => w.generator === generator.id) : undefined;
      const runs = await runCell(
        generator,
        cell,
        walk &&
          (async () => {
            if (!credentials) throw new Error('the reference server did not start');
            const fixtures = walkFixtures(generator.id);
            return walkProblems(walkSteps(await walk.run(cell, { ...credentials, fixtures })), fixtures);
          }),
      );
      const surprises: string[] = [];
      for (const { stage, status, detail, note } of runs) {
        matrix.set(generator.id, bundle.name, stage, { status, note });
        const known = KNOWN_FAILURES.some(
          (f) => f.generator === generator.id && f.bundle === bundle.name && f.stage === stage,
        );
        if (status === 'fail' && !known) surprises.push(`${stage} failed:\n${detail}`);
        if (status === 'pass' && known)
          surprises.push(
            `${stage} passes, but test/support/known-failures.ts says it fails: remove that entry`,
          );
      }
      expect(surprises, surprises.join('\n\n')).toEqual([]);
    });
  }
});

it('lists known failures only where the project allows one', () => {
  const forbidden = KNOWN_FAILURES.filter((failure) => mustPass(failure.generator, failure.bundle));
  expect(forbidden).toEqual([]);
});

it('docs/guides/generators.md shows the measured matrix', (context) => {
  const measured = matrix.render();
  console.log(`\nGenerator matrix:\n\n${measured}\n`);
  // Cells of a missing toolchain were not measured; the stand-ins above say so (and fail under CI=true).
  if (missing.length > 0) context.skip(`not all toolchains are here (${missing.join('; ')})`);
  if (process.env.UPDATE_GENERATOR_MATRIX === '1') writeDocumentedMatrix(docsPage, measured);
  expect(
    documentedMatrix(docsPage),
    'docs/guides/generators.md shows another matrix: run this test with UPDATE_GENERATOR_MATRIX=1 and commit the page',
  ).toBe(measured);
});
