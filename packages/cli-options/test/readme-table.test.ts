import { describe, expect, it } from 'vitest';
import {
  integer,
  option,
  optionTable,
  optionTableProblem,
  readmeOptionTable,
  switchFlag,
  text,
} from '../src/index.js';

const SERVE = {
  port: option({ flag: 'port', env: 'PORT', parser: integer(0, 65535), default: '3000', help: 'TCP port' }),
  format: option({
    flag: 'format',
    env: 'LOG_FORMAT',
    parser: text(),
    default: 'a|b',
    help: 'pipes | escaped',
  }),
  key: option({ flag: 'key', parser: text(), help: 'a key' }),
};
const TRIGGER = { insecure: option({ flag: 'insecure', parser: switchFlag(), help: 'any certificate' }) };

const SERVE_TABLE = [
  '| flag | environment | default | meaning |',
  '|---|---|---|---|',
  '| `--port` | `PORT` | `3000` | TCP port |',
  '| `--format` | `LOG_FORMAT` | `a\\|b` | pipes \\| escaped |',
  '| `--key` | none | none | a key |',
].join('\n');
const TRIGGER_TABLE = [
  '| flag | default | meaning |',
  '|---|---|---|',
  '| `--insecure` | none | any certificate |',
].join('\n');

const README = ['# tool', '', '## serve', '', SERVE_TABLE, '', '## trigger', '', TRIGGER_TABLE].join('\n');

describe("a README's option table", () => {
  it('is written from the declaration, a row per option, without a variable column when none has one', () => {
    expect(optionTable(SERVE)).toBe(SERVE_TABLE);
    expect(optionTable(TRIGGER)).toBe(TRIGGER_TABLE);
  });

  it('is read from the README, under a heading when there are several', () => {
    expect(readmeOptionTable(README, SERVE)).toBe(SERVE_TABLE);
    expect(readmeOptionTable(README, TRIGGER, '## trigger')).toBe(TRIGGER_TABLE);
    expect(readmeOptionTable(README, SERVE, '## trigger')).toBeUndefined();
    expect(readmeOptionTable(README, SERVE, '## nowhere')).toBeUndefined();
  });

  it('is checked against the declaration, the problem giving the table to write', () => {
    expect(optionTableProblem(README, SERVE, '## serve')).toBeUndefined();
    expect(optionTableProblem(README, TRIGGER, '## trigger')).toBeUndefined();
    const added = { ...SERVE, host: option({ flag: 'host', env: 'HOST', parser: text(), help: 'address' }) };
    const problem = optionTableProblem(README, added, '## serve');
    expect(problem).toContain('has an option table under "## serve" that is not the declaration\'s');
    expect(problem).toContain('| `--host` | `HOST` | none | address |');
    expect(optionTableProblem('# empty', SERVE)).toMatch(/^the README has no option table; it should be:/);
  });
});
