// One generator on one bundle, stage after stage: generate, compile, and a walk of each server. A stage the
// cell does not have is 'none'; a stage whose client was not generated and compiled is not run.
import { tail } from './commands.js';
import type { Cell, Generator } from './generators.js';
import type { Stage, WalkStage } from './known-failures.js';
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

/** A walk of the cell's generated client against one server: what is wrong with what it reported. */
export type CellWalk = () => Promise<string[]>;

/**
 * Runs the cell's stages: generate, compile, then one walk per server (`walks`, each absent where the cell
 * has no walk). The walks need the generated and compiled client, not one another.
 */
export async function runCell(
  generator: Generator,
  cell: Cell,
  walks: [WalkStage, CellWalk | undefined][],
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
  const compile = generator.compile;
  if (!compile) runs.push({ stage: 'compile', status: 'none' });
  else if (!generated.ok) runs.push({ stage: 'compile', status: 'not run' });
  else {
    const compiled = await compile.run(cell);
    runs.push({
      stage: 'compile',
      status: compiled.ok ? 'pass' : 'fail',
      detail: `${compiled.command}\n${tail(compiled.output)}`,
    });
  }
  const built = runs.every((run) => run.status !== 'fail');
  for (const [stage, walk] of walks) {
    if (!walk) runs.push({ stage, status: 'none' });
    else if (!built) runs.push({ stage, status: 'not run' });
    else {
      // A walk that cannot run or report is a failed walk, not a lost cell.
      const problems = await walk().catch((error: Error) => [error.message]);
      runs.push({ stage, status: problems.length === 0 ? 'pass' : 'fail', detail: problems.join('\n') });
    }
  }
  return runs;
}
