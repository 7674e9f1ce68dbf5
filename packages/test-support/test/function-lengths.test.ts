import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { functionsLongerThan } from '../src/function-lengths.js';

const dir = mkdtempSync(join(tmpdir(), 'function-lengths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const body = (lines: number) =>
  Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');

it('finds every kind of function longer than the limit, by name and place, longest first', () => {
  mkdirSync(join(dir, 'nested'));
  writeFileSync(
    join(dir, 'a.ts'),
    `export function short() {\n${body(5)}\n}\nexport const arrow = () => {\n${body(12)}\n};\n`,
  );
  writeFileSync(
    join(dir, 'nested', 'b.ts'),
    `class C {\n  method() {\n${body(11)}\n  }\n}\nexport default function () {\n${body(10)}\n}\n`,
  );
  writeFileSync(join(dir, 'nested', 'c.d.ts'), `declare function ignored(): void;\n`);
  expect(functionsLongerThan(dir, 10)).toEqual([
    { where: 'a.ts:6', name: 'arrow', lines: 12 },
    { where: 'nested/b.ts:2', name: 'method', lines: 11 },
  ]);
});
