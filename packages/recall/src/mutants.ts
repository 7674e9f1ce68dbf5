// The mutants: StrykerJS's instrumenter (as a library) reads the server's request-handling sources and
// writes every mutant into them at once behind a switch (`__STRYKER_ACTIVE_MUTANT__`), so one build serves
// every mutant and a process runs exactly the one its environment names.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { MUTATED_SOURCES, serverRelative, serverRoot } from './paths.js';

export interface Mutant {
  /** Stryker's id for this instrumentation: what `__STRYKER_ACTIVE_MUTANT__` names. */
  id: string;
  /** Relative to apps/server, e.g. `src/auth/guard.ts`. */
  file: string;
  /** 1-based, as an editor shows it. */
  line: number;
  mutator: string;
  original: string;
  replacement: string;
  /** file + mutator + original + replacement: survives edits elsewhere in the file (the line does not). */
  key: string;
}

export interface InstrumentedServer {
  /** Instrumented source text by path relative to apps/server. */
  files: Map<string, string>;
  mutants: Mutant[];
}

/** Whitespace collapsed; a long fragment shortened with a hash of the whole, so keys stay readable and exact. */
export function describeCode(code: string): string {
  const flat = code.replace(/\s+/g, ' ').trim();
  if (flat.length <= 100) return flat;
  const hash = createHash('sha256').update(flat).digest('hex').slice(0, 8);
  return `${flat.slice(0, 60)}… #${hash}`;
}

export const mutantKey = (m: Pick<Mutant, 'file' | 'mutator' | 'original' | 'replacement'>) =>
  `${m.file} | ${m.mutator} | ${m.original} → ${m.replacement}`;

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) walk(join(path, entry));
    } else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) files.push(path);
  };
  for (const source of MUTATED_SOURCES) walk(join(serverRoot, source));
  return files;
}

/** Stryker's logger interface; only warnings and errors matter here. */
const quietLogger = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => true,
  isErrorEnabled: () => true,
  isFatalEnabled: () => true,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (...args: unknown[]) => console.warn('stryker:', ...args),
  error: (...args: unknown[]) => console.error('stryker:', ...args),
  fatal: (...args: unknown[]) => console.error('stryker:', ...args),
};

/** The text a 0-based Stryker location spans. */
function spanned(lines: string[], start: Position, end: Position): string {
  if (start.line === end.line) return (lines[start.line] ?? '').slice(start.column, end.column);
  const first = (lines[start.line] ?? '').slice(start.column);
  const middle = lines.slice(start.line + 1, end.line);
  const last = (lines[end.line] ?? '').slice(0, end.column);
  return [first, ...middle, last].join('\n');
}

interface Position {
  line: number;
  column: number;
}

export async function instrumentServer(): Promise<InstrumentedServer> {
  const paths = sourceFiles();
  const sources = new Map(paths.map((path) => [path, readFileSync(path, 'utf8')]));
  const instrumenter = new Instrumenter(quietLogger);
  const result = await instrumenter.instrument(
    paths.map((name) => ({ name, content: sources.get(name) ?? '', mutate: true })),
    { plugins: null, excludedMutations: [], ignorers: [] },
  );
  const linesOf = new Map([...sources].map(([path, text]) => [path, text.split('\n')]));
  const mutants = result.mutants.map((mutant): Mutant => {
    const { start, end } = mutant.location;
    const described = {
      file: serverRelative(mutant.fileName),
      mutator: mutant.mutatorName,
      original: describeCode(spanned(linesOf.get(mutant.fileName) ?? [], start, end)),
      replacement: describeCode(mutant.replacement),
    };
    return { id: mutant.id, line: start.line + 1, ...described, key: mutantKey(described) };
  });
  const files = new Map(result.files.map((file) => [serverRelative(file.name), file.content]));
  return { files, mutants };
}
