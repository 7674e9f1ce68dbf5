import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The layer order of README.md ("Layers"), checked against the imports of every file in src:
 * none may point to a later layer, and none may close a cycle. Files belong to a layer by their top-level
 * folder (`state/`), or by their name when they sit in src itself.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** Layer names (`state/`, `front.ts`) → their position in the README's list, 1 being the bottom. */
function readLayers(): Map<string, number> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Layers\n'));
  if (!section) throw new Error('README.md has no "## Layers" section');
  const layers = new Map<string, number>();
  for (const [, position = '', line = ''] of section.matchAll(/^(\d+)\. (.*)$/gm)) {
    // The names stand before the dash; the words after it only describe them.
    const [names = ''] = line.split(' — ');
    for (const [, name = ''] of names.matchAll(/`([^`]+)`/g)) layers.set(name, Number(position));
  }
  return layers;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [relative(src, join(dir, entry.name)).split('\\').join('/')]
        : [],
  );
}

/** `state/engine.ts` → `state/`; `front.ts` → `front.ts`. */
const layerName = (file: string) => (file.includes('/') ? `${file.split('/')[0]}/` : file);

/** The files of src a file imports (type-only imports included), as paths relative to src. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(src, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.[^']+)'/gm)].map(
    ([, specifier = '']) => specifier,
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

describe('the layers of src (README.md, "Layers")', () => {
  const layers = readLayers();
  const files = sourceFiles(src);
  const graph = new Map(files.map((file) => [file, importsOf(file)]));

  it('places every file of src in a layer, and lists no layer without files', () => {
    expect(files.filter((file) => !layers.has(layerName(file)))).toEqual([]);
    const used = new Set(files.map(layerName));
    expect([...layers.keys()].filter((name) => !used.has(name))).toEqual([]);
  });

  it('has every import point to the same layer or one before it', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => (layers.get(layerName(target)) ?? 0) > (layers.get(layerName(file)) ?? 0))
        .map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('imports only files that exist', () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => !graph.has(target)).map((target) => `${file} → ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });
});
