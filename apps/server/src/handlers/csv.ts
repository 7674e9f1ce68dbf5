/*
 * RFC 4180 CSV: fields separated by commas, records by CRLF or LF, fields containing a comma, quote or
 * line break enclosed in double quotes with quotes doubled. Enough for dataset import/export.
 */

export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  let fieldStarted = false;
  let line = 1;
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let i = 0; i < input.length; i++) {
    const c = input.charAt(i);
    if (quoted) {
      if (c === '"') {
        if (input[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
          const next = input[i + 1];
          if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
            throw new CsvSyntaxError('a closing quote must end the field', line);
          }
        }
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"') {
      if (fieldStarted) throw new CsvSyntaxError('a quote inside an unquoted field', line);
      quoted = true;
      fieldStarted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
      fieldStarted = false;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && input[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      fieldStarted = false;
      line++;
    } else {
      field += c;
      fieldStarted = true;
    }
  }
  if (quoted) throw new CsvSyntaxError('a quoted field is not closed', line);
  if (fieldStarted || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  // Blank lines carry no record.
  return records.filter((r) => !(r.length === 1 && r[0] === ''));
}

function quoteField(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function formatCsv(records: string[][]): string {
  return records.map((r) => `${r.map(quoteField).join(',')}\n`).join('');
}
