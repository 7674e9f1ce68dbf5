// One generator on one bundle, stage after stage: generate, compile, walk. A stage the generator does not
// have is 'none'; after a failure the later stages are not run.
import { tail } from './commands.js';
import type { Cell, Generator } from './generators.js';
import type { Stage } from './known-failures.js';
import type { Status } from './matrix.js';

export interface StageRun {
  stage: Stage;
  status: Status;
  /** The command and its output's tail, or the walk's problems. */
  detail?: string;
  note?: string;
}

/** What openapi-python-client leaves out, as its warnings say: a note of the cell. */
function leftOut(output: string): string | undefined {
  const quoted = (matches: IterableIterator<RegExpMatchArray>) =>
    [...new Set([...matches].map((match) => `\`${match[1]}\``))].join(', ');
  const operations = quoted(
    output.matchAll(/WARNING parsing (\w+ \S+) within [^\n]*Endpoint will not be generated/g),
  );
  const bodies = quoted(output.matchAll(/Unsupported content type (\S+)/g));
  const responses = output.match(/response will be omitted from generated client/g)?.length ?? 0;
  const parts = [];
  if (operations) parts.push(`operations ${operations}`);
  if (bodies) parts.push(`request bodies of type ${bodies}`);
  if (responses > 0) parts.push(`${responses} responses it cannot type`);
  return parts.length > 0 ? `leaves out ${parts.join('; ')} (a warning for each)` : undefined;
}

/**
 * Runs the cell's stages. `walk`, when the cell has one, runs the generated client against the server and
 * returns what is wrong with what it reported.
 */
export async function runCell(
  generator: Generator,
  cell: Cell,
  walk: (() => Promise<string[]>) | undefined,
): Promise<StageRun[]> {
  const generated = await generator.generate(cell);
  const runs: StageRun[] = [
    {
      stage: 'generate',
      status: generated.ok ? 'pass' : 'fail',
      detail: `${generated.command}\n${tail(generated.output)}`,
      note: leftOut(generated.output),
    },
  ];
  const later: [Stage, (() => Promise<Omit<StageRun, 'stage'>>) | undefined][] = [
    [
      'compile',
      generator.compile &&
        (async () => {
          const compiled = await (generator.compile as NonNullable<Generator['compile']>).run(cell);
          return {
            status: compiled.ok ? 'pass' : 'fail',
            detail: `${compiled.command}\n${tail(compiled.output)}`,
          };
        }),
    ],
    [
      'walk',
      walk &&
        (async () => {
          // A walk that cannot run or report is a failed walk, not a lost cell.
          const problems = await walk().catch((error: Error) => [error.message]);
          return { status: problems.length === 0 ? 'pass' : 'fail', detail: problems.join('\n') };
        }),
    ],
  ];
  for (const [stage, run] of later) {
    if (!run) runs.push({ stage, status: 'none' });
    else if (runs.some((earlier) => earlier.status === 'fail')) runs.push({ stage, status: 'not run' });
    else runs.push({ stage, ...(await run()) });
  }
  return runs;
}
