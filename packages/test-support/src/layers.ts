// A package's layer order, as its README lists it, checked against the imports of its source: no import
// points to a later layer, and no chain of imports comes back to where it started.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

export interface CheckLayersOptions {
  /** The package's folder. */
  root: string;
  /** The README holding the list, relative to `root`. */
  readme?: string;
  /** The section listing the layers: the text of its `## ` heading. */
  heading?: string;
  /** The source folder whose files and imports are checked, relative to `root`. */
  src?: string;
}

/** What breaks the order; every list empty when the source keeps it. Files are paths relative to `src`. */
export interface LayerViolations {
  /** Files that belong to no listed layer. */
  unplaced: string[];
  /** Listed layers that hold no file (a name the README keeps after its files went). */
  empty: string[];
  /** Imports that point to a later layer, `file → imported`. */
  upward: string[];
  /** Imports of files that do not exist, `file → imported`. */
  missing: string[];
  /** Import cycles, each written from its smallest file back to it (at least one per tangle of files). */
  cycles: string[];
}

/**
 * Checks the imports of every TypeScript file of `src` against the numbered list of the README's layers
 * section, the first line being the bottom layer. Each line names its layers in backticks before a ` — `
 * (`db/`, `app.ts`): a file belongs to a layer by its top-level folder, or by its name when it sits in `src`
 * itself. Relative imports are read (type-only ones and re-exports included); packages are not layers.
 */
export function checkLayers({
  root,
  readme = 'README.md',
  heading = 'Layers',
  src = 'src',
}: CheckLayersOptions): LayerViolations {
  const layers = readLayers(join(root, readme), heading);
  const srcDir = join(root, src);
  const files = sourceFiles(srcDir, srcDir);
  const graph = new Map(files.map((file) => [file, importsOf(srcDir, file)]));
  const used = new Set(files.map(layerName));
  const imports = [...graph].flatMap(([file, targets]) => targets.map((target) => ({ file, target })));
  const layerOf = (file: string) => layers.get(layerName(file)) ?? 0;
  return {
    unplaced: files.filter((file) => !layers.has(layerName(file))),
    empty: [...layers.keys()].filter((name) => !used.has(name)),
    upward: imports
      .filter(({ file, target }) => layerOf(target) > layerOf(file))
      .map(({ file, target }) => `${file} → ${target}`),
    missing: imports
      .filter(({ target }) => !graph.has(target))
      .map(({ file, target }) => `${file} → ${target}`),
    cycles: cyclesOf(graph),
  };
}

/** Layer names (`db/`, `app.ts`) → their position in the README's list, 1 being the bottom. */
function readLayers(readme: string, heading: string): Map<string, number> {
  if (!existsSync(readme)) throw new Error(`${readme} does not exist`);
  const section = readFileSync(readme, 'utf8')
    .split(/^## /m)
    .find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new Error(`${readme} has no "## ${heading}" section`);
  const layers = new Map<string, number>();
  for (const [, position = '', line = ''] of section.matchAll(/^(\d+)\. (.*)$/gm)) {
    // The names stand before the dash; the words after it only describe them.
    const [names = ''] = line.split(' — ');
    for (const [, name = ''] of names.matchAll(/`([^`]+)`/g)) layers.set(name, Number(position));
  }
  if (layers.size === 0) throw new Error(`the "## ${heading}" section of ${readme} lists no layer`);
  return layers;
}

/** The TypeScript files below `dir`, as paths relative to `srcDir` with forward slashes. */
function sourceFiles(dir: string, srcDir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name), srcDir)
      : entry.name.endsWith('.ts')
        ? [relative(srcDir, join(dir, entry.name)).split('\\').join('/')]
        : [],
  );
}

/** `db/database.ts` → `db/`; `app.ts` → `app.ts`. */
const layerName = (file: string) => (file.includes('/') ? `${file.split('/')[0]}/` : file);

/** The files of src a file imports, as paths relative to src. */
function importsOf(srcDir: string, file: string): string[] {
  const text = readFileSync(join(srcDir, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)(['"])(\.[^'"]+)\1/gm)].map(
    ([, , specifier = '']) => specifier,
  );
  return specifiers.map((specifier) => posix.join(posix.dirname(file), specifier).replace(/\.js$/, '.ts'));
}

/** The cycles a depth-first walk meets (at least one per tangle of files), each written from its smallest file. */
function cyclesOf(graph: Map<string, string[]>): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      const loop = path.slice(at);
      const start = loop.indexOf([...loop].sort()[0] ?? file);
      const rotated = [...loop.slice(start), ...loop.slice(0, start)];
      cycles.push([...rotated, rotated[0]].join(' → '));
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) visit(file);
  return [...new Set(cycles)].sort();
}
