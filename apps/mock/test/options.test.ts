// The README's option tables are the CLI's declarations (src/options.ts), row for row.
import { readFileSync } from 'node:fs';
import { optionTableProblem } from '@platform-api/cli-options';
import { describe, expect, it } from 'vitest';
import { MOCK_OPTIONS, TRIGGER_OPTIONS } from '../src/options.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe("the README's option tables", () => {
  it("hold the mock's options", () => {
    expect(optionTableProblem(readme, MOCK_OPTIONS)).toBeUndefined();
  });

  it("hold trigger's options, under its section", () => {
    expect(
      optionTableProblem(readme, TRIGGER_OPTIONS, '## `trigger`: send chat events to your receiver'),
    ).toBeUndefined();
  });
});
