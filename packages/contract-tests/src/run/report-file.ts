// The machine-readable report (`--report FILE`): the RunReport as JSON, each failure with its case id and
// its request exactly as sent — but with the run's secrets as `${TOKEN}`-style placeholders, so the file can
// be shared; `contract-tests replay` fills them in from its own credentials. `--baseline` reads it back.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { SentRequest } from '../client.js';
import { caseIdsOf } from './cases.js';
import type { BaselineOutcome, CaseResult, Failure, RunReport } from './session.js';

/** Changes whenever a reader of an older file would misread a newer one. */
export const REPORT_FORMAT = 'contract-tests-report/1';

export interface StoredRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * How `body` holds what was sent: absent for text as it was; bytes in base64, gzipped when large; large text
   * gzipped (`text+gzip+base64`: placeholders inside are filled once it is unzipped).
   */
  bodyEncoding?: 'base64' | 'gzip+base64' | 'text+gzip+base64';
}

export interface StoredFailure extends Omit<Failure, 'request' | 'redacted'> {
  id: string;
  /** The request with placeholders for the secrets named in `secrets`. */
  request: StoredRequest;
  secrets: string[];
}

export interface StoredResult extends Omit<CaseResult, 'failures'> {
  failures: StoredFailure[];
}

export interface ReportFile extends Omit<RunReport, 'results' | 'baseline'> {
  format: typeof REPORT_FORMAT;
  results: StoredResult[];
  baseline?: Omit<BaselineOutcome, 'known'> & { known: StoredFailure[] };
}

/** Bodies above this are gzipped (the oversized_body probe sends megabytes of one letter). */
const GZIP_ABOVE = 64 * 1024;
const PLACEHOLDER = /\$\{([A-Z][A-Z0-9_]*)\}/g;

export function toReportFile(report: RunReport): ReportFile {
  const stored = storer(report.results.flatMap((result) => result.failures));
  const { results, baseline, ...rest } = report;
  return {
    format: REPORT_FORMAT,
    ...rest,
    results: results.map((result) => ({ ...result, failures: result.failures.map(stored) })),
    ...(baseline ? { baseline: { ...baseline, known: baseline.known.map(storer(baseline.known)) } } : {}),
  };
}

function storer(failures: Failure[]): (failure: Failure) => StoredFailure {
  const idOf = caseIdsOf(failures);
  return (failure) => {
    const id = idOf.get(failure);
    if (id === undefined)
      throw new Error(`a failure outside the report: ${failure.check} ${failure.operationId}`);
    const { request: _raw, redacted, ...rest } = failure;
    const request = storeRequest(redacted);
    return { id, ...rest, request, secrets: placeholdersOf(request) };
  };
}

export function writeReportFile(file: string, report: RunReport): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(toReportFile(report), null, 2)}\n`);
}

/** A report file that cannot be used: missing, not JSON, or of another format. */
export class ReportFileError extends Error {}

export function readReportFile(file: string): ReportFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ReportFileError(`cannot read the report ${file}: ${(error as Error).message}`);
  }
  const format = (parsed as { format?: unknown } | null)?.format;
  if (format !== REPORT_FORMAT)
    throw new ReportFileError(
      `${file} is not a contract-tests report of format ${REPORT_FORMAT} (its format: ${JSON.stringify(format ?? null)})`,
    );
  const report = parsed as ReportFile;
  if (!Array.isArray(report.results)) throw new ReportFileError(`${file} has no results`);
  return report;
}

/** Every failure of a report file: its own, then the baseline's known ones it carried over. */
export function casesOf(report: ReportFile): StoredFailure[] {
  return [...report.results.flatMap((result) => result.failures), ...(report.baseline?.known ?? [])];
}

function storeRequest(request: SentRequest): StoredRequest {
  const { body, ...rest } = request;
  if (body === undefined) return rest;
  const text = typeof body === 'string';
  const bytes = Buffer.from(body);
  if (bytes.byteLength > GZIP_ABOVE) {
    const bodyEncoding = text ? 'text+gzip+base64' : 'gzip+base64';
    return { ...rest, body: gzipSync(bytes).toString('base64'), bodyEncoding };
  }
  return text ? { ...rest, body } : { ...rest, body: bytes.toString('base64'), bodyEncoding: 'base64' };
}

/** The body as text, when it was sent as text. */
function bodyText(request: StoredRequest): string | undefined {
  if (request.body === undefined || request.bodyEncoding === undefined) return request.body;
  if (request.bodyEncoding !== 'text+gzip+base64') return undefined;
  return gunzipSync(Buffer.from(request.body, 'base64')).toString('utf8');
}

/** The placeholders a stored request holds (`TOKEN`, `OTHER_TOKEN`, `BASIC_AUTH`, …). */
export function placeholdersOf(request: StoredRequest): string[] {
  const texts = [request.url, ...Object.values(request.headers), bodyText(request) ?? ''];
  return [...new Set(texts.flatMap((text) => [...text.matchAll(PLACEHOLDER)].map(([, name = '']) => name)))];
}

/**
 * The request to send again: placeholders filled from `secrets` (each must be there), the body decoded —
 * text stays text and bytes stay bytes, as the run sent them.
 */
export function requestOf(stored: StoredRequest, secrets: Record<string, string>): SentRequest {
  const fill = (text: string) =>
    text.replace(PLACEHOLDER, (whole, name: string) => {
      const value = secrets[name];
      if (value === undefined) throw new Error(`no value for ${whole}`);
      return value;
    });
  const headers = Object.fromEntries(
    Object.entries(stored.headers).map(([name, value]) => [name, fill(value)]),
  );
  const request: SentRequest = { method: stored.method, url: fill(stored.url), headers };
  const text = bodyText(stored);
  if (text !== undefined) request.body = fill(text);
  else if (stored.body !== undefined) {
    const bytes = Buffer.from(stored.body, 'base64');
    request.body = new Uint8Array(stored.bodyEncoding === 'gzip+base64' ? gunzipSync(bytes) : bytes);
  }
  return request;
}
