/*
 * RFC 4180 CSV: fields separated by commas, records ended by CRLF or LF, a field holding a comma, a quote,
 * a line break or edge whitespace enclosed in double quotes with its quotes doubled. The reference server
 * reads imports and writes exports with it, the mock stores them, and the contract suite writes the
 * records it imports and reads the export back: one reading of the format for all three.
 */

/** Text that is not CSV, and the line (from 1) where that shows. */
export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

/**
 * The records of CSV text. A leading byte order mark is skipped and a blank line carries no record (a
 * record of one empty field is written `""`). Throws CsvSyntaxError for a quote inside an unquoted field,
 * text after a closing quote, or a quoted field never closed.
 */
export function parseCsv(text: string): string[][] {
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  // Whether the current field has begun: an empty unquoted field after a comma has, a blank line has not.
  let started = false;
  let line = 1;
  const endRecord = () => {
    if (started || record.length > 0) records.push([...record, field]);
    record = [];
    field = '';
    started = false;
  };
  for (let i = 0; i < input.length; i++) {
    const char = input.charAt(i);
    if (quoted) {
      if (char !== '"') {
        if (char === '\n') line++;
        field += char;
      } else if (input[i + 1] === '"') {
        field += '"';
        i++;
      } else {
        quoted = false;
        const next = input[i + 1];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r')
          throw new CsvSyntaxError('a closing quote must end its field', line);
      }
    } else if (char === '"') {
      if (started && field !== '') throw new CsvSyntaxError('a quote inside an unquoted field', line);
      quoted = true;
      started = true;
    } else if (char === ',') {
      record.push(field);
      field = '';
      started = true;
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && input[i + 1] === '\n') i++;
      endRecord();
      line++;
    } else {
      field += char;
      started = true;
    }
  }
  if (quoted) throw new CsvSyntaxError('a quoted field is not closed', line);
  endRecord();
  return records;
}

export interface CsvFormat {
  /** Quote every field, not only those that need it (default false). */
  quoteAll?: boolean;
  /** What ends each record (default LF; RFC 4180 writes CRLF, and both read back alike). */
  lineBreak?: '\n' | '\r\n';
}

/** CSV text of `records`, each ended by the line break. */
export function formatCsv(
  records: readonly (readonly string[])[],
  { quoteAll = false, lineBreak = '\n' }: CsvFormat = {},
): string {
  const field = (value: string, alone: boolean) =>
    quoteAll || (alone && value === '') || /[",\r\n]|^\s|\s$/.test(value)
      ? `"${value.replaceAll('"', '""')}"`
      : value;
  return records
    .map((record) => `${record.map((value) => field(value, record.length === 1)).join(',')}${lineBreak}`)
    .join('');
}
