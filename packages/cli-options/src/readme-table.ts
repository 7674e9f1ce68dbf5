import { type Declaration, meaning, optionsOf, shownDefault } from './options.js';

/*
 * A README's table of options, written from the declaration, and read back from the README so that a test can
 * compare the two: the table cannot drift from what the command accepts.
 */

/** The first line of every option table; without an `environment` column when no option has a variable. */
export function optionTableHeader(declaration: Declaration): string {
  return hasVariables(declaration)
    ? '| flag | environment | default | meaning |'
    : '| flag | default | meaning |';
}

const hasVariables = (declaration: Declaration) =>
  optionsOf(declaration).some((o) => o.spec.env !== undefined);

/** The Markdown table of a declaration's options: flag, variable, default and meaning, a row each. */
export function optionTable(declaration: Declaration): string {
  // A `|` inside a cell, even in code, must be escaped in a GitHub table.
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const withVariables = hasVariables(declaration);
  const rows = optionsOf(declaration).map((o) => {
    const shown = shownDefault(o);
    const cells = [
      `\`--${o.spec.flag}\``,
      ...(withVariables ? [o.spec.env === undefined ? 'none' : `\`${o.spec.env}\``] : []),
      shown === undefined ? 'none' : `\`${cell(shown)}\``,
      cell(meaning(o)),
    ];
    return `| ${cells.join(' | ')} |`;
  });
  const rule = `|${'---|'.repeat(withVariables ? 4 : 3)}`;
  return [optionTableHeader(declaration), rule, ...rows].join('\n');
}

/**
 * The option table a README holds for `declaration`: the first line that is its header (below the line
 * `heading`, when given: a README with a table per command) and the table rows under it; undefined when
 * there is none.
 */
export function readmeOptionTable(
  readme: string,
  declaration: Declaration,
  heading?: string,
): string | undefined {
  const lines = readme.split('\n');
  const from = heading === undefined ? 0 : lines.indexOf(heading);
  if (from < 0) return undefined;
  const start = lines.indexOf(optionTableHeader(declaration), from);
  if (start < 0) return undefined;
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/**
 * What is wrong with a README's option table for `declaration` (missing, or not row for row the declaration's),
 * with the table it should hold; undefined when it is right.
 */
export function optionTableProblem(
  readme: string,
  declaration: Declaration,
  heading?: string,
): string | undefined {
  const expected = optionTable(declaration);
  const found = readmeOptionTable(readme, declaration, heading);
  if (found === expected) return undefined;
  const where = heading === undefined ? '' : ` under "${heading}"`;
  const what =
    found === undefined
      ? `has no option table${where}`
      : `has an option table${where} that is not the declaration's`;
  return `the README ${what}; it should be:\n\n${expected}\n`;
}
