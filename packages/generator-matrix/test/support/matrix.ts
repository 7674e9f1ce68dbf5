// The matrix's results, and the Markdown table the docs page shows (docs/guides/generators.md, between
// the two `generator-matrix` comments): the test prints it, and fails when the page says otherwise.
import { readFileSync, writeFileSync } from 'node:fs';
import { BUNDLES, type BundleName, GENERATORS } from './generators.js';
import { KNOWN_FAILURES, type Stage } from './known-failures.js';
import { WALK_SERVERS, walkOf } from './walks.js';

export type Status = 'pass' | 'fail' | 'not run' | 'none';

export interface Outcome {
  status: Status;
  /** Worth knowing about a passing cell (operations a generator leaves out). */
  note?: string;
}

const key = (generator: string, bundle: BundleName, stage: Stage) => `${generator} ${bundle} ${stage}`;

export class Matrix {
  readonly #outcomes = new Map<string, Outcome>();

  set(generator: string, bundle: BundleName, stage: Stage, outcome: Outcome): void {
    this.#outcomes.set(key(generator, bundle, stage), outcome);
  }

  get(generator: string, bundle: BundleName, stage: Stage): Outcome {
    return this.#outcomes.get(key(generator, bundle, stage)) ?? { status: 'not run' };
  }

  /** The Markdown table, its notes and the known failures' reasons. */
  render(): string {
    const symbol: Record<Status, string> = { pass: '✅', fail: '❌', 'not run': '⋯', none: '—' };
    // A bundle has walk columns where some generator walks from it (not the site bundle).
    const columns = BUNDLES.flatMap(({ name: bundle }) => {
      const walked = GENERATORS.some((generator) => walkOf(generator.id, bundle));
      const stages: Stage[] = [
        'generate',
        'compile',
        ...(walked ? WALK_SERVERS.map(({ stage }) => stage) : []),
      ];
      return stages.map((stage) => ({ bundle, stage }));
    });
    const header = ['generator', 'version', 'compile check'];
    header.push(...columns.map(({ bundle, stage }) => `\`${bundle}\`: ${stage}`));
    const rows = [header, header.map(() => '---')];
    const notes: string[] = [];
    for (const generator of GENERATORS) {
      const row = [generator.label, generator.version, generator.compile?.how ?? '—'];
      for (const { bundle, stage } of columns) {
        const outcome = this.get(generator.id, bundle, stage);
        let cell = symbol[outcome.status];
        if (outcome.note) {
          notes.push(`${generator.label} on \`${bundle}\` (${stage}): ${outcome.note}`);
          cell += `<sup>${notes.length}</sup>`;
        }
        row.push(cell);
      }
      rows.push(row);
    }
    const lines = rows.map((row) => `| ${row.join(' | ')} |`);
    lines.push(
      '',
      '✅ passes, ❌ fails (reason below), ⋯ not run (an earlier stage failed), — not applicable',
    );
    if (notes.length > 0) lines.push('', ...notes.map((note, index) => `${index + 1}. ${note}`));
    const failures = KNOWN_FAILURES.map(({ generator, bundle, stage, reason, upstream }) => {
      const label = GENERATORS.find((candidate) => candidate.id === generator)?.label ?? generator;
      return `- ${label} on \`${bundle}\` (${stage}): ${reason}${upstream ? ` (${issueLink(upstream)})` : ''}`;
    });
    if (failures.length > 0) lines.push('', 'Known failures, each a generator limitation:', '', ...failures);
    return lines.join('\n');
  }
}

/** `[owner/repo#N](url)` for a GitHub issue or pull request, the URL itself otherwise. */
function issueLink(url: string): string {
  const match = url.match(/^https:\/\/github\.com\/([^/]+\/[^/]+)\/(?:issues|pull)\/(\d+)$/);
  return match ? `[${match[1]}#${match[2]}](${url})` : url;
}

const BEGIN = '<!-- generator-matrix:begin (written by packages/generator-matrix; do not edit) -->';
const END = '<!-- generator-matrix:end -->';

/** The matrix as the docs page shows it now. */
export function documentedMatrix(page: string): string | undefined {
  const text = readFileSync(page, 'utf8');
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) return undefined;
  return text.slice(begin + BEGIN.length, end).trim();
}

/** Writes the matrix into the docs page, between the markers. */
export function writeDocumentedMatrix(page: string, matrix: string): void {
  const text = readFileSync(page, 'utf8');
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${page} has no ${BEGIN} … ${END} block`);
  writeFileSync(page, `${text.slice(0, begin + BEGIN.length)}\n${matrix}\n${text.slice(end)}`);
}
