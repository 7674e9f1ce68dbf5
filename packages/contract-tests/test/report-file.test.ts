// The JSON report file: requests kept exactly (text, bytes, megabytes) with secrets as placeholders, case ids
// stable across runs and unique within one, and the baseline matching defects rather than requests.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyBaseline,
  type CaseResult,
  caseIds,
  type Failure,
  formatSummary,
  ReportFileError,
  type RunReport,
  readReportFile,
  redactRequest,
  requestOf,
  type SentRequest,
  stableMessage,
  succeeded,
  toReportFile,
  writeReportFile,
} from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'report-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const secrets = { TOKEN: 'tok-secret-123', BASIC_AUTH: Buffer.from('id:pw-secret').toString('base64') };

function failure(
  check: Failure['check'],
  operationId: string,
  message: string,
  request: SentRequest,
): Failure {
  return {
    phase: 'coverage',
    check,
    operationId,
    message,
    request,
    redacted: redactRequest(request, secrets),
    curl: 'curl …',
    status: 200,
    excerpt: '',
  };
}

function reportOf(failures: Failure[], passed: Array<[Failure['check'], string]> = []): RunReport {
  const results: CaseResult[] = [
    ...failures.map(
      (f): CaseResult => ({
        phase: f.phase,
        check: f.check,
        operationId: f.operationId,
        outcome: 'failed',
        runs: 1,
        failures: [f],
      }),
    ),
    ...passed.map(
      ([check, operationId]): CaseResult => ({
        phase: 'coverage',
        check,
        operationId,
        outcome: 'passed',
        runs: 3,
        failures: [],
      }),
    ),
  ];
  return {
    api: 'platform',
    target: 'http://api.test',
    seed: 1,
    startedAt: '2026-11-26T00:00:00.000Z',
    durationMs: 1,
    phases: [{ name: 'coverage', requests: 1, durationMs: 1 }],
    requests: 1,
    throttling: { throttled: 0, waitedMs: 0 },
    results,
    matrix: [],
  };
}

const get = (url: string): SentRequest => ({
  method: 'GET',
  url,
  headers: { accept: 'application/json', authorization: `Bearer ${secrets.TOKEN}` },
});

describe('the report file', () => {
  it('keeps each request exactly, secrets as placeholders that replay fills in', () => {
    const bytes = new Uint8Array([0, 255, 1, 254]);
    const large = `{"padding":"${'x'.repeat(200_000)}","token":"${secrets.TOKEN}"}`;
    const requests: SentRequest[] = [
      { ...get(`http://api.test/v1/users?q=${secrets.TOKEN}`), body: `{"a":"${secrets.TOKEN}"}` },
      {
        method: 'POST',
        url: 'http://api.test/v1/files',
        headers: { authorization: `Basic ${secrets.BASIC_AUTH}` },
        body: bytes,
      },
      { method: 'POST', url: 'http://api.test/v1/groups', headers: {}, body: large },
    ];
    const file = join(dir, 'exact.json');
    writeReportFile(file, reportOf(requests.map((r, i) => failure('not_a_server_error', `op${i}`, 'm', r))));
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(secrets.TOKEN);
    expect(text).not.toContain(secrets.BASIC_AUTH);
    const stored = readReportFile(file).results.flatMap((result) => result.failures);
    expect(stored.map((f) => f.secrets)).toEqual([['TOKEN'], ['BASIC_AUTH'], ['TOKEN']]);
    const [bearer, , gzipped] = stored;
    if (!bearer || !gzipped) throw new Error('the three failures were not stored');
    expect(bearer.request.headers.authorization).toBe(`Bearer \${TOKEN}`);
    expect(gzipped.request.bodyEncoding).toBe('text+gzip+base64');
    expect(stored.map((f) => requestOf(f.request, secrets))).toEqual(requests);
    expect(() => requestOf(bearer.request, {})).toThrow(`no value for \${TOKEN}`);
  });

  it('refuses a file of another format', () => {
    const file = join(dir, 'other.json');
    writeFileSync(file, JSON.stringify({ format: 'something/9', results: [] }));
    expect(() => readReportFile(file)).toThrow(ReportFileError);
    expect(() => readReportFile(join(dir, 'missing.json'))).toThrow(ReportFileError);
  });
});

describe('case ids', () => {
  it('leave out what differs between runs, and keep what names the defect', () => {
    const run = (tag: string, uuid: string) =>
      stableMessage(
        `createGroup → 200: status not documented (documented: 201); body {"id":"${uuid}","name":"Groupy ${tag}"}`,
      );
    expect(run('mwt6h5613', '12cf59cc-8dc2-4f38-b34e-966ff87683a6')).toBe(
      run('zz9', 'ffffffff-8dc2-4f38-b34e-966ff87683a6'),
    );
    expect(stableMessage('listUsers → 500: server error, body {"a":1}')).not.toBe(
      stableMessage('listUsers → 502: server error, body {"a":1}'),
    );
    expect(stableMessage("getUser → 200: body must have required property 'email'")).not.toBe(
      stableMessage("getUser → 200: body must have required property 'name'"),
    );
  });

  it('are the same for the same defect in another run, and unique within a report', () => {
    const a = {
      check: 'status_code_conformance' as const,
      operationId: 'createGroup',
      message: 'x; body {"id":1}',
    };
    const b = { ...a, message: 'x; body {"id":2}' };
    const c = { ...a, operationId: 'createUser' };
    const [ida, idb, idc] = caseIds([a, b, c]);
    expect(ida).toMatch(/^[0-9a-f]{8}$/);
    expect(idb).toBe(`${ida}.2`);
    expect(idc).not.toBe(ida);
    expect(caseIds([b])).toEqual([ida]);
  });
});

describe('a baseline', () => {
  const schema = failure(
    'response_schema_conformance',
    'getUser',
    "getUser → 200: body must have required property 'email'",
    get('http://api.test/v1/users/1'),
  );
  const crash = failure(
    'not_a_server_error',
    'listUsers',
    'listUsers → 500: server error, body {}',
    get('http://api.test/v1/users?limit=500'),
  );
  const file = join(dir, 'baseline.json');
  writeReportFile(file, reportOf([schema, crash]));

  it('takes known failures out, matched by defect not request, and lists what was fixed', () => {
    // The same defect met through another request (another seed), the crash gone where it was checked.
    const again = { ...schema, request: get('http://api.test/v1/users/7') };
    const fresh = failure(
      'status_code_conformance',
      'createGroup',
      'createGroup → 200: status not documented',
      get('http://api.test/v1/groups'),
    );
    const report = applyBaseline(
      reportOf([again, fresh], [['not_a_server_error', 'listUsers']]),
      readReportFile(file),
      file,
    );
    expect(report.results.filter((r) => r.outcome === 'failed').map((r) => r.operationId)).toEqual([
      'createGroup',
    ]);
    expect(report.baseline?.known).toEqual([again]);
    expect(report.baseline?.fixed.map((f) => f.operationId)).toEqual(['listUsers']);
    const summary = formatSummary(report);
    expect(summary).toContain('1 known failure from the baseline, not counted');
    expect(summary).toContain('fixed since the baseline: case');
    expect(succeeded(report)).toBe(false);
    expect(succeeded(applyBaseline(reportOf([again]), readReportFile(file), file))).toBe(true);
    // A report written with a baseline carries the known failures on, for the next baseline.
    expect(toReportFile(report).baseline?.known.map((f) => f.operationId)).toEqual(['getUser']);
  });
});
