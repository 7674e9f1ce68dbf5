// How long the functions of a source folder are, read with the TypeScript compiler: function
// declarations, methods, accessors, constructors, function expressions and arrow functions, each counted
// from the line it starts on to the line it ends on (source-rules.ts holds a package's src to a limit).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface FunctionLength {
  /** `file:line`, the file relative to the folder read. */
  where: string;
  /** The function's name, or what it is assigned to or passed as; `(anonymous)` when it has none. */
  name: string;
  lines: number;
}

/** Every function of the TypeScript files below `dir` longer than `maxLines`, longest first. */
export function functionsLongerThan(dir: string, maxLines: number): FunctionLength[] {
  return typeScriptFiles(dir)
    .flatMap((file) => functionLengths(file, relative(dir, file)))
    .filter((found) => found.lines > maxLines)
    .sort((a, b) => b.lines - a.lines);
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function functionLengths(file: string, shownAs: string): FunctionLength[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = lineOf(node.getStart(source));
      found.push({
        where: `${shownAs}:${first + 1}`,
        name: nameOf(node),
        lines: lineOf(node.getEnd()) - first + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const { parent } = node;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}
