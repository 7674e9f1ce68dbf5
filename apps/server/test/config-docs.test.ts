import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ConfigOf,
  integer,
  option,
  optionsHelp,
  optionsOf,
  optionTable,
  optionTableProblem,
  readOptions,
} from '@platform-api/cli-options';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { SERVER_OPTIONS, type ServerConfig } from '../src/config.js';

/* The README's option table and `--help` follow the declaration (the binary's --help: cli.test.ts). */

const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md'), 'utf8');

describe('configuration documentation', () => {
  it("the README's option table is the declaration's, row for row", () => {
    expect(optionTableProblem(readme, SERVER_OPTIONS)).toBeUndefined();
  });

  it('gives each option a flag and a variable of its own', () => {
    const options = optionsOf(SERVER_OPTIONS);
    expect(new Set(options.map((o) => o.spec.flag)).size).toBe(options.length);
    expect(new Set(options.map((o) => o.spec.env)).size).toBe(options.length);
    expect(options.every((o) => o.spec.env !== undefined)).toBe(true);
  });

  it('--help lists every option with its variable, meaning and default', () => {
    const help = optionsHelp(SERVER_OPTIONS);
    expect(help.split('\n')).toHaveLength(optionsOf(SERVER_OPTIONS).length);
    expect(help).toMatch(/^ {2}--port +PORT +TCP port \(default 3000\)$/m);
    expect(help).toMatch(/^ {2}--log-format +LOG_FORMAT +.* \(json\|pretty\) \(default json\)$/m);
    expect(help).toMatch(
      /^ {2}--public-url +PLATFORM_PUBLIC_URL +.* \(default http\(s\):\/\/localhost:<port>\)$/m,
    );
    expect(help).toMatch(/^ {2}--database-url +DATABASE_URL +PostgreSQL URL; SQLite when unset$/m);
  });

  it('an option added to the declaration reaches --help, the README check and the configuration', () => {
    const extended = {
      ...SERVER_OPTIONS,
      workers: option({
        flag: 'workers',
        env: 'PLATFORM_WORKERS',
        parser: integer(1, 64),
        default: '4',
        help: 'worker processes',
      }),
    };
    expect(optionsHelp(extended)).toMatch(
      /^ {2}--workers +PLATFORM_WORKERS +worker processes \(default 4\)$/m,
    );
    expect(optionTable(extended)).toContain('| `--workers` | `PLATFORM_WORKERS` | `4` | worker processes |');
    // The README check now fails until the README has the new row.
    expect(optionTableProblem(readme, extended)).toContain('| `--workers` | `PLATFORM_WORKERS` | `4` |');

    type Extended = ConfigOf<typeof extended>;
    expectTypeOf<Extended['workers']>().toEqualTypeOf<number>();
    expectTypeOf<Omit<Extended, 'workers'>>().toEqualTypeOf<ServerConfig>();
    const config = readOptions(extended, new Map([['workers', '8']]), { PORT: '4000' });
    expect(config).toMatchObject({ workers: 8, port: 4000, publicUrl: 'http://localhost:4000' });
    expect(() => readOptions(extended, new Map(), { PLATFORM_WORKERS: '0' })).toThrow(
      'PLATFORM_WORKERS (--workers) must be an integer from 1 to 64, got "0"',
    );
  });
});
