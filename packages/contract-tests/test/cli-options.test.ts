// The CLI's options are declared once (packages/cli-options): `--help` and the README's option tables are
// written from the declarations, so neither can drift from what the command accepts.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Declaration, optionsHelp, optionTableProblem } from '@platform-api/cli-options';
import { describe, expect, it } from 'vitest';
import { RUN_OPTIONS, USAGE } from '../src/cli.js';
import { REPLAY_OPTIONS } from '../src/replay.js';
import { TARGETS } from '../src/targets/index.js';

const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md'), 'utf8');

const DECLARATIONS: Array<[string, Declaration]> = [
  ['both APIs', RUN_OPTIONS],
  ...Object.values(TARGETS).map((target): [string, Declaration] => [target.api, target.options]),
  ['replay', REPLAY_OPTIONS],
];

describe('the options of contract-tests', () => {
  for (const [command, declaration] of DECLARATIONS) {
    it(`of ${command}: the README's table is the declaration's`, () => {
      expect(optionTableProblem(readme, declaration, `#### Options of ${command}`)).toBeUndefined();
    });

    it(`of ${command}: --help lists them as declared`, () => {
      expect(USAGE).toContain(optionsHelp(declaration));
    });
  }
});
