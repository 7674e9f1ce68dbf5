// The commands and code the READMEs show, read from the READMEs themselves: what a test runs is what a
// reader copies.
import { readFileSync } from 'node:fs';

/**
 * The `nth` (from 0) ```lang block after the line `heading` (a whole Markdown heading line, e.g.
 * "### A new project"), before the next heading of any level.
 */
export function readmeBlock(readme: string, heading: string, lang: string, nth = 0): string {
  const lines = readFileSync(readme, 'utf8').split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${readme} has no heading "${heading}"`);
  const blocks: string[] = [];
  let open: { lang: string; lines: string[] } | undefined;
  for (const line of lines.slice(start + 1)) {
    if (open) {
      if (line === '```') {
        if (open.lang === lang) blocks.push(open.lines.join('\n'));
        open = undefined;
      } else open.lines.push(line);
    } else if (line.startsWith('```')) open = { lang: line.slice(3), lines: [] };
    else if (/^#{1,6} /.test(line)) break;
  }
  const block = blocks[nth];
  if (block === undefined)
    throw new Error(`${readme} has no \`\`\`${lang} block number ${nth + 1} under "${heading}"`);
  return block;
}
