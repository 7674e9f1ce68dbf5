import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, formatCsv, parseCsv } from '../src/index.js';

const records = fc.array(
  fc.array(fc.string({ unit: 'grapheme-composite' }), { minLength: 1, maxLength: 4 }),
  {
    maxLength: 5,
  },
);

describe('formatCsv and parseCsv', () => {
  it('read back what they wrote, whatever the fields hold and however records end', () => {
    fc.assert(
      fc.property(
        records,
        fc.boolean(),
        fc.constantFrom('\n' as const, '\r\n' as const),
        (written, quoteAll, lineBreak) => {
          expect(parseCsv(formatCsv(written, { quoteAll, lineBreak }))).toEqual(written);
        },
      ),
    );
  });

  it('quote only the fields that need it, and a record of one empty field', () => {
    expect(formatCsv([['a', 'b,c', 'say "hi"', ' edge', ''], ['']])).toBe(
      'a,"b,c","say ""hi"""," edge",\n""\n',
    );
    expect(formatCsv([['a', '']], { quoteAll: true, lineBreak: '\r\n' })).toBe('"a",""\r\n');
  });
});

describe('parseCsv', () => {
  it('skips a byte order mark and blank lines, and takes CRLF, LF and a last record without a break', () => {
    expect(parseCsv('\ufeffa,b\r\n\r\n"x\ny",\n\nlast')).toEqual([['a', 'b'], ['x\ny', ''], ['last']]);
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv(',\n')).toEqual([['', '']]);
  });

  it('refuses text that is not CSV, naming the line', () => {
    const refusal = (text: string) => {
      try {
        parseCsv(text);
      } catch (error) {
        if (error instanceof CsvSyntaxError) return [error.message, error.line];
      }
      return undefined;
    };
    expect(refusal('a,b\nc"d,e')).toEqual(['a quote inside an unquoted field', 2]);
    expect(refusal('a\n"b"c')).toEqual(['a closing quote must end its field', 2]);
    expect(refusal('a\n\n"b\nc')).toEqual(['a quoted field is not closed', 4]);
  });
});
