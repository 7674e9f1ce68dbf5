// The code generators teams use, on the published bundles: for each generator × bundle, does it generate,
// does the output compile, and — for a Python client (openapi-generator `python`) and a Go client
// (oapi-codegen) from the platform bundle — does the generated client walk the reference server and the
// platform mock as pydomo does. Prints the matrix and fails when docs/guides/generators.md shows another
// one; UPDATE_GENERATOR_MATRIX=1 writes the measured matrix into the page instead.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { unavailable } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CellWalk, runCell } from './support/cells.js';
import { BUNDLES, GENERATORS } from './support/generators.js';
import { KNOWN_FAILURES, mustPass, type WalkStage } from './support/known-failures.js';
import { documentedMatrix, Matrix, writeDocumentedMatrix } from './support/matrix.js';
import { packageDir, prepareToolchains } from './support/toolchains.js';
import {
  type StartedWalkServer,
  WALK_SERVERS,
  walkFixtures,
  walkOf,
  walkProblems,
  walkSteps,
} from './support/walks.js';

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

const servers = new Map<WalkStage, StartedWalkServer>();
beforeAll(async () => {
  // One after the other: what started is in `servers`, closed below, even when the next one fails to start.
  for (const { stage, start } of WALK_SERVERS) servers.set(stage, await start());
});
afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.close()));
});

describe.each(BUNDLES)('$name', (bundle) => {
  for (const generator of GENERATORS) {
    if (generator.needs.some((name) => !tools[name].available)) continue;
    it(generator.label, async () => {
      const cell = { bundle, out: mkdtempSync(join(tmpdir(), `${generator.id}-`)), tools };
      const walk = walkOf(generator.id, bundle.name);
      // The same walk and the same judgement for every server.
      const walks = WALK_SERVERS.map(({ stage }): [WalkStage, CellWalk | undefined] => [
        stage,
        walk &&
          (async () => {
            const server = servers.get(stage);
            if (!server) throw new Error(`${stage}: the server did not start`);
            const fixtures = walkFixtures(generator.id);
            const target = { baseUrl: server.baseUrl, ...(await server.client(generator.id)), fixtures };
            return walkProblems(walkSteps(await walk.run(cell, target)), fixtures);
          }),
      ]);
      const runs = await runCell(generator, cell, walks);
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
