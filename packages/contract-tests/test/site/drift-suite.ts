// Drift check of one WordPress: the site spec against the site's own description of its routes
// (`GET /wp-json/?context=help`), compared as the site's version has them (the spec's x-wp-since,
// x-wp-before and x-wp-no-route marks). Every other difference is either fixed in the spec or listed in
// site-drift-allowlist.yaml, for the versions it applies to, with a reviewed reason; an entry that applies
// to the site's version but matches nothing there fails too. test/site/drift.test.ts runs it against every
// WordPress found, `site-contract-tests` against one.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  type AllowEntry,
  ContractClient,
  compareRouteIndex,
  type DriftReport,
  describeDifference,
  loadBundle,
  olderThan,
  type RouteIndex,
  SpecValidator,
  type Triage,
  triageDifferences,
  wpSince,
} from '../../src/index.js';
import type { WordPressSite } from './support/wordpress.js';

export const allowListFile = join(dirname(fileURLToPath(import.meta.url)), '../../site-drift-allowlist.yaml');

export function readAllowList(): AllowEntry[] {
  const parsed = parse(readFileSync(allowListFile, 'utf8')) as { entries?: AllowEntry[] } | null;
  return parsed?.entries ?? [];
}

/** Registers the drift check against one WordPress. */
export function siteDriftSuite(site: WordPressSite): void {
  describe(`site spec drift against ${site.name}`, () => {
    const validator = new SpecValidator(loadBundle('site'));
    const allowList = readAllowList();
    let report: DriftReport | undefined;
    let triage: Triage | undefined;

    it('reads the route index', async () => {
      const client = new ContractClient({
        validator,
        baseUrl: `${site.url}/wp-json`,
        credentials: { basic: { username: site.user, password: site.password } },
      });
      const index = await client.call('getIndex', { query: { context: 'help' } });
      expect(index.status).toBe(200);
      expect(index.problems).toEqual([]);
      report = compareRouteIndex(validator, index.json as RouteIndex, { targetVersion: site.version });
      triage = triageDifferences(report.differences, allowList, site.version);
      expect(report.compared.length).toBeGreaterThan(40);
    });

    it('every allow-list entry has a reason', () => {
      for (const entry of allowList)
        expect(entry.reason?.trim().length ?? 0, JSON.stringify(entry)).toBeGreaterThan(10);
    });

    it('has no difference that is not fixed in the spec or allow-listed', () => {
      expect(triage?.unexpected.map(describeDifference)).toEqual([]);
    });

    it(`has no stale allow-list entry for ${site.version ?? 'this version'}`, () => {
      expect(triage?.stale.map((entry) => JSON.stringify(entry))).toEqual([]);
    });

    afterAll(() => {
      if (report && triage) console.log(summary(validator, report, triage, site.version));
    });
  });
}

function summary(
  validator: SpecValidator,
  report: DriftReport,
  triage: Triage,
  version: string | undefined,
): string {
  const lines: string[] = [];
  const allowedByRoute = new Map<string, number>();
  const unexpectedByRoute = new Map<string, number>();
  const expectedByRoute = new Map<string, number>();
  for (const { difference } of triage.allowed)
    allowedByRoute.set(difference.route, (allowedByRoute.get(difference.route) ?? 0) + 1);
  for (const difference of triage.unexpected)
    unexpectedByRoute.set(difference.route, (unexpectedByRoute.get(difference.route) ?? 0) + 1);
  for (const absence of report.expected)
    expectedByRoute.set(absence.route, (expectedByRoute.get(absence.route) ?? 0) + 1);
  const width = Math.max(...report.compared.map((route) => route.template.length), 10);
  lines.push('', `Site drift check against WordPress ${version ?? '(version unknown)'}`, '');
  lines.push(`${'route'.padEnd(width)}  ${'methods'.padEnd(26)} args  allowed  by-version  unexpected`);
  for (const route of report.compared) {
    lines.push(
      `${route.template.padEnd(width)}  ${route.methods.join(',').padEnd(26)} ${String(route.argumentsCompared).padStart(4)}  ${String(allowedByRoute.get(route.template) ?? 0).padStart(7)}  ${String(expectedByRoute.get(route.template) ?? 0).padStart(10)}  ${String(unexpectedByRoute.get(route.template) ?? 0).padStart(10)}`,
    );
  }
  const used = new Set(triage.allowed.map((allowed) => allowed.entry)).size;
  lines.push(
    '',
    `Routes compared: ${report.compared.length}; differences: ${report.differences.length} (allowed ${triage.allowed.length}, unexpected ${triage.unexpected.length}); absent as the spec's version marks say: ${report.expected.length}; allow-list entries: ${used} used, ${triage.stale.length} stale, ${triage.notApplicable.length} for other versions`,
  );
  if (triage.unexpected.length > 0) {
    lines.push('', 'UNEXPECTED differences (fix the spec or allow-list with a reason):');
    for (const difference of triage.unexpected) lines.push(`  ${describeDifference(difference)}`);
  }
  const skipped: string[] = [];
  for (const { template, operations } of report.notOffered) {
    const plugin = operations.some((operation) => operation.node['x-plugin'] === true);
    skipped.push(
      `  ${template} — not offered by the target${plugin ? ' (x-plugin: a plugin namespace, absent from core WordPress)' : ''}`,
    );
  }
  for (const absence of report.expected.filter((absence) => absence.argument === undefined))
    skipped.push(`  ${absence.method} ${absence.route} — not offered (${absence.reason})`);
  for (const route of report.compared) {
    const operations = notServable(route.template);
    if (operations.length > 0)
      skipped.push(`  ${route.template} — arguments compared, but not servable: ${operations.join('; ')}`);
  }
  lines.push('', `SKIPPED (described by the spec, not served by the target): ${skipped.length}`, ...skipped);
  lines.push(
    '',
    `Not described by the spec (routes the spec leaves out on purpose, not failures): ${report.notDescribed.length}`,
  );
  lines.push(`  ${report.notDescribed.join('\n  ')}`, '');
  return lines.join('\n');

  // Operations the spec marks as newer than the target (`x-wp-since`): registered, but not served.
  function notServable(template: string): string[] {
    return validator.operations
      .filter((operation) => operation.path === template)
      .filter((operation) => {
        const since = wpSince(operation.node);
        return since !== undefined && (version === undefined || olderThan(version, since));
      })
      .map(
        (operation) =>
          `${operation.operationId} (x-wp-since ${wpSince(operation.node)}, target ${version ?? 'unknown'})`,
      );
  }
}
