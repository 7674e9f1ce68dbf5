// The three views of a run report: the console summary, JUnit XML (for CI), and one self-contained HTML
// file (the status matrix and every failure with its curl line).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { caseIds, caseIdsOf, KNOWN_REASON } from './cases.js';
import { CHECKS } from './checks.js';
import { type Failure, failuresOf, type RunReport, type StatusRow } from './session.js';

export function counts(report: RunReport) {
  const outcome = (name: string) => report.results.filter((result) => result.outcome === name).length;
  return {
    passed: outcome('passed'),
    failed: outcome('failed'),
    skipped: outcome('skipped'),
    failures: failuresOf(report).length,
  };
}

/** Whether the run passed: no fatal error and no failed check. */
export function succeeded(report: RunReport): boolean {
  return !report.fatal && counts(report).failed === 0;
}

/** Each failure of a report with its case id (`contract-tests replay REPORT ID`). */
export function idsOf(report: RunReport): Map<Failure, string> {
  return caseIdsOf(failuresOf(report));
}

function formatFailure(failure: Failure, index: number, seed: number, id: string | undefined): string {
  return [
    `${index + 1}) ${failure.check} — ${failure.operationId} (${failure.phase} phase, seed ${seed}, case ${id})`,
    `   ${failure.message}`,
    `   ${failure.curl}`,
    `   → ${failure.status ?? 'no answer'} ${failure.excerpt.replace(/\s+/g, ' ').slice(0, 300)}`,
  ].join('\n');
}

/**
 * The console summary: the failures, the phases and the totals, and for a run that stopped, its cause last
 * (`STOPPED: …`). `header: false` leaves out the first line, for a caller that printed it at the start.
 */
export function formatSummary(report: RunReport, options: { header?: boolean } = {}): string {
  const lines: string[] = [];
  const total = counts(report);
  if (options.header !== false)
    lines.push(`contract-tests ${report.api} against ${report.target} — seed ${report.seed}`, '');
  const failures = failuresOf(report);
  if (failures.length > 0) {
    lines.push(`FAILURES (${failures.length})`);
    const ids = idsOf(report);
    failures.forEach((failure, index) => {
      lines.push(formatFailure(failure, index, report.seed, ids.get(failure)));
    });
    lines.push('');
  }
  if (report.phases.length > 0)
    lines.push(
      `phases: ${report.phases.map((phase) => `${phase.name} ${phase.requests} requests (${(phase.durationMs / 1000).toFixed(1)} s)`).join(', ')}`,
    );
  const { throttled, waitedMs } = report.throttling;
  if (throttled > 0 || waitedMs > 0)
    lines.push(
      `target throttled the run: ${throttled} answer${throttled === 1 ? '' : 's'} 429 waited out, ${(waitedMs / 1000).toFixed(1)} s waited in all (its rate limit, not a failure)`,
    );
  if (report.baseline) lines.push(...formatBaseline(report.baseline));
  // Known failures are the baseline's line above, not a skip reason per check.
  const skipped = report.results.filter(
    (result) => result.outcome === 'skipped' && result.reason !== KNOWN_REASON,
  );
  const skippedOperations = new Map<string, Set<string>>();
  for (const result of skipped) {
    const reason = `${result.check}: ${result.reason}`;
    skippedOperations.set(reason, (skippedOperations.get(reason) ?? new Set()).add(result.operationId));
  }
  for (const [reason, operations] of skippedOperations) {
    lines.push(`skipped ${reason} (${[...operations].join(', ')})`);
  }
  const totals = `${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s; checks × operations: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`;
  if (report.fatal) {
    if (report.requests > 0) lines.push(totals);
    lines.push(`STOPPED: ${report.fatal}`);
  } else {
    lines.push(
      `${totals} — ${succeeded(report) ? 'PASSED' : 'FAILED'} (reproduce with --seed ${report.seed})`,
    );
  }
  return lines.join('\n');
}

/** Case ids for one line: the first 20, then how many more. */
function listed(ids: string[]): string {
  const unique = [...new Set(ids)];
  return unique.length > 20
    ? `${unique.slice(0, 20).join(', ')}, … ${unique.length - 20} more`
    : unique.join(', ');
}

function formatBaseline(baseline: NonNullable<RunReport['baseline']>): string[] {
  const known = baseline.known.length;
  const ids = caseIds(baseline.known);
  const lines = [
    `${known} known failure${known === 1 ? '' : 's'} from the baseline, not counted${known > 0 ? ` (cases ${listed(ids)})` : ''}`,
  ];
  for (const fixed of baseline.fixed)
    lines.push(`fixed since the baseline: case ${fixed.id} ${fixed.check} — ${fixed.operationId}`);
  return lines;
}

/** The status matrix as text: one line per operation, each documented status with how often it was seen. */
export function formatMatrix(report: RunReport): string {
  return report.matrix
    .map((row) => {
      const cells = row.documented.map((status) => `${status}:${seenFor(row, status)}`);
      const undocumented = Object.keys(row.seen).filter((status) => !covers(row.documented, status));
      const extra = undocumented.map((status) => `${status}!:${row.seen[status]}`);
      return `${row.operationId.padEnd(28)} ${[...cells, ...extra].join(' ')}`;
    })
    .join('\n');
}

/** How many answers fell under a documented status key (`404`, `4XX`, `default`). */
function seenFor(row: StatusRow, documented: string): number {
  return Object.entries(row.seen)
    .filter(([status]) => matchKey(row.documented, status) === documented)
    .reduce((sum, [, count]) => sum + count, 0);
}

function matchKey(documented: string[], status: string): string | undefined {
  if (documented.includes(status)) return status;
  const range = `${status[0]}XX`;
  if (documented.includes(range)) return range;
  return documented.includes('default') ? 'default' : undefined;
}

function covers(documented: string[], status: string): boolean {
  return matchKey(documented, status) !== undefined;
}

const xml = (text: string) =>
  text
    .replace(
      /[<>&"']/g,
      (char) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[char]};`,
    )
    // XML 1.0 has no place for most control characters.
    .split('')
    .map((char) =>
      char.charCodeAt(0) < 0x20 && !'\t\n\r'.includes(char)
        ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
        : char,
    )
    .join('');

export function toJUnit(report: RunReport): string {
  const total = counts(report);
  const ids = idsOf(report);
  const seconds = (report.durationMs / 1000).toFixed(3);
  const suites = report.phases.map((phase) => {
    const results = report.results.filter((result) => result.phase === phase.name);
    const cases = results.map((result) => {
      const name = xml(`${result.check} ${result.operationId}`);
      const head = `    <testcase classname="${xml(`${report.api}.${phase.name}.${result.check}`)}" name="${name}">`;
      if (result.outcome === 'skipped')
        return `${head}<skipped message="${xml(result.reason ?? '')}"/></testcase>`;
      if (result.outcome === 'passed') return `${head}</testcase>`;
      const body = result.failures
        .map((failure, index) => formatFailure(failure, index, report.seed, ids.get(failure)))
        .join('\n');
      const first = result.failures[0];
      const message = first ? `case ${ids.get(first)}: ${first.message}` : 'failed';
      return `${head}\n      <failure message="${xml(message)}" type="${result.check}">${xml(body)}</failure>\n    </testcase>`;
    });
    const failed = results.filter((result) => result.outcome === 'failed').length;
    const skipped = results.filter((result) => result.outcome === 'skipped').length;
    return [
      `  <testsuite name="${xml(`${report.api} ${phase.name}`)}" tests="${results.length}" failures="${failed}" skipped="${skipped}" time="${(phase.durationMs / 1000).toFixed(3)}">`,
      `    <properties><property name="seed" value="${report.seed}"/><property name="requests" value="${phase.requests}"/></properties>`,
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  // The run itself: how the target's rate limit held it up, and the cause when it stopped.
  const { throttled, waitedMs } = report.throttling;
  const stopped = report.fatal
    ? `\n    <testcase classname="${xml(report.api)}" name="the run"><failure message="${xml(report.fatal)}" type="stopped">${xml(report.fatal)}</failure></testcase>`
    : '';
  suites.unshift(
    `  <testsuite name="${xml(`${report.api} run`)}" tests="${report.fatal ? 1 : 0}" failures="${report.fatal ? 1 : 0}" skipped="0" time="${seconds}">\n    <properties><property name="seed" value="${report.seed}"/><property name="throttled" value="${throttled}"/><property name="throttle-waited-ms" value="${waitedMs}"/></properties>${stopped}\n  </testsuite>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(`contract-tests ${report.api} against ${report.target} (seed ${report.seed})`)}" tests="${total.passed + total.failed + total.skipped}" failures="${total.failed + (report.fatal ? 1 : 0)}" skipped="${total.skipped}" time="${seconds}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

const html = (text: string) =>
  text.replace(/[<>&"]/g, (char) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot' }[char]};`);

export function toHtml(report: RunReport): string {
  const total = counts(report);
  const verdict = report.fatal ? 'stopped' : succeeded(report) ? 'passed' : 'failed';
  const failures = failuresOf(report);
  const ids = idsOf(report);
  const allStatuses = [
    ...new Set(
      report.matrix.flatMap((row) => [
        ...row.documented,
        ...Object.keys(row.seen).filter((s) => !covers(row.documented, s)),
      ]),
    ),
  ].sort();
  const matrixRows = report.matrix.map((row) => {
    const cells = allStatuses.map((status) => {
      if (row.documented.includes(status)) {
        const seen = seenFor(row, status);
        return `<td class="${seen > 0 ? 'seen' : 'unseen'}">${seen > 0 ? seen : '·'}</td>`;
      }
      const undocumented = covers(row.documented, status) ? 0 : (row.seen[status] ?? 0);
      return undocumented > 0
        ? `<td class="undocumented" title="undocumented">${undocumented}!</td>`
        : '<td></td>';
    });
    return `<tr><th>${html(row.operationId)}</th><td class="path">${html(`${row.method} ${row.path}`)}</td>${cells.join('')}</tr>`;
  });
  const failureItems = failures.map(
    (
      failure,
    ) => `<li id="case-${html(ids.get(failure) ?? '')}"><h3>${html(failure.check)} — ${html(failure.operationId)} <small>${html(failure.phase)} phase, case <code>${html(ids.get(failure) ?? '')}</code></small></h3>
<p>${html(failure.message)}</p><p class="check">${html(CHECKS[failure.check].description)}</p>
<pre>${html(failure.curl)}</pre><pre class="answer">${html(`${failure.status ?? 'no answer'} ${failure.excerpt}`)}</pre></li>`,
  );
  const checkRows = Object.values(CHECKS).map(({ name, description }) => {
    const results = report.results.filter((result) => result.check === name);
    const state = results.some((r) => r.outcome === 'failed')
      ? 'failed'
      : results.some((r) => r.outcome === 'passed')
        ? 'passed'
        : results.length
          ? 'skipped'
          : 'not run';
    return `<tr class="${state.replace(' ', '-')}"><th>${name}</th><td>${state}</td><td>${results.reduce((sum, r) => sum + r.runs, 0)}</td><td>${html(description)}</td></tr>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>contract-tests ${html(report.api)} — ${verdict}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1f24}h1{font-size:1.4rem}table{border-collapse:collapse;margin:1rem 0}
th,td{border:1px solid #d0d7de;padding:.2rem .45rem;text-align:left;vertical-align:top}td.seen{background:#dafbe1}td.unseen{color:#8c959f}
td.undocumented{background:#ffebe9;font-weight:bold}td.path{font-family:ui-monospace,monospace;white-space:nowrap}
tr.failed th{color:#cf222e}pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.fatal{background:#ffebe9;padding:.8rem;border:1px solid #cf222e}.ok{color:#1a7f37}.ko{color:#cf222e}small{color:#57606a;font-weight:normal}
</style></head><body>
<h1>contract-tests ${html(report.api)} against ${html(report.target)}: <span class="${verdict === 'passed' ? 'ok' : 'ko'}">${verdict}</span></h1>
<p>Seed <code>${report.seed}</code> (reproduce with <code>--seed ${report.seed}</code>) · started ${html(report.startedAt)} · ${(report.durationMs / 1000).toFixed(1)} s · ${report.requests} requests · ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped</p>
${report.fatal ? `<p class="fatal">Run stopped: ${html(report.fatal)}</p>` : ''}
${report.throttling.throttled > 0 || report.throttling.waitedMs > 0 ? `<p>The target's rate limit held the run up: ${report.throttling.throttled} answers 429 waited out, ${(report.throttling.waitedMs / 1000).toFixed(1)} s waited in all (not failures).</p>` : ''}
<p>Phases: ${report.phases.map((phase) => `${html(phase.name)} (${phase.requests} requests)`).join(', ')}</p>
<h2>Failures (${failures.length})</h2>
${report.baseline ? `<p>${html(formatBaseline(report.baseline).join('\n')).replaceAll('\n', '<br>')}</p>` : ''}
${failures.length ? `<ol>${failureItems.join('\n')}</ol>` : '<p>None.</p>'}
<h2>Status matrix</h2>
<p>Per operation, how many answers had each documented status (· = documented, never produced; ! = undocumented).</p>
<table><tr><th>operation</th><th></th>${allStatuses.map((status) => `<th>${html(status)}</th>`).join('')}</tr>
${matrixRows.join('\n')}</table>
<h2>Checks</h2>
<table><tr><th>check</th><th>state</th><th>runs</th><th>asserts</th></tr>${checkRows.join('\n')}</table>
</body></html>
`;
}

/**
 * The status matrix as CSV, one row per operation and status (documented, or seen though undocumented),
 * with the target: files of several targets concatenate into one matrix operation × status × target.
 */
export function toMatrixCsv(report: RunReport): string {
  const csv = (value: string | number) =>
    /[",\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : value;
  const rows = report.matrix.flatMap((row) => {
    const undocumented = Object.keys(row.seen).filter((status) => !covers(row.documented, status));
    return [
      ...row.documented.map((status) => [status, 'yes', seenFor(row, status)] as const),
      ...undocumented.map((status) => [status, 'no', row.seen[status] ?? 0] as const),
    ].map(([status, documented, seen]) =>
      [report.target, row.operationId, row.method, row.path, status, documented, seen].map(csv).join(','),
    );
  });
  return ['target,operation,method,path,status,documented,seen', ...rows, ''].join('\n');
}

export function writeReports(
  report: RunReport,
  files: { junit?: string; html?: string; matrix?: string },
): void {
  for (const [file, content] of [
    [files.junit, () => toJUnit(report)],
    [files.html, () => toHtml(report)],
    [files.matrix, () => toMatrixCsv(report)],
  ] as const) {
    if (!file) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content());
  }
}
