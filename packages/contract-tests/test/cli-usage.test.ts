// `--help` and `-h` after every subcommand print the usage and exit 0: never "Unknown option", never a run.
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('contract-tests --help', () => {
  for (const flag of ['--help', '-h']) {
    for (const command of [[], ['platform'], ['site'], ['platform', '--base-url', 'http://127.0.0.1:9']]) {
      it(`contract-tests ${[...command, flag].join(' ')}`, async () => {
        const result = await cli([...command, flag]);
        expect(result.err).toBe('');
        expect(result.code).toBe(0);
        expect(result.out).toContain('contract-tests platform --base-url URL');
        expect(result.out).toContain('contract-tests site --base-url URL');
      });
    }
    it(`contract-tests replay ${flag}`, async () => {
      const result = await cli(['replay', flag]);
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
      expect(result.out).toContain('contract-tests replay REPORT.json CASE-ID');
    });
  }
});
