// Drift check: the site spec against the real WordPress's own description of its routes
// (`GET /wp-json/?context=help`). Every difference is either fixed in the spec or listed in
// site-drift-allowlist.yaml with a reviewed reason; allow-list entries that match nothing fail too.
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
  type RouteIndex,
  routeToTemplate,
  SpecValidator,
  type Triage,
  triageDifferences,
} from '../../src/index.js';
import { findWordPress, olderThan, wordPressUnavailable } from './support/wordpress.js';

// The machinery itself, on a made-up index: runs without WordPress.
describe('drift check machinery', () => {
  const validator = new SpecValidator(loadBundle('site'));

  it('turns WordPress route regexes into templates, nested groups included', () => {
    expect(routeToTemplate('/wp/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)')).toBe(
      '/wp/v2/posts/{parent}/revisions/{id}',
    );
    expect(
      routeToTemplate(
        '/wp/v2/templates/(?P<id>([^\\/:<>\\*\\?"\\|]+(?:\\/[^\\/:<>\\*\\?"\\|]+)?)[\\/\\w-]+)',
      ),
    ).toBe('/wp/v2/templates/{id}');
    expect(routeToTemplate('/batch/v1')).toBe('/batch/v1');
  });

  it('finds method, argument, type, enum, default and bound differences, and stale allow-list entries', () => {
    const index: RouteIndex = {
      routes: {
        '/oembed/1.0/proxy': {
          methods: ['GET', 'POST'],
          endpoints: [
            {
              methods: ['GET'],
              args: {
                url: { type: 'string', format: 'uri', required: true },
                format: { type: 'string', enum: ['json'], default: 'json' },
                maxwidth: { type: 'string', default: 600 },
                maxheight: { type: 'integer', minimum: 1 },
                discover: { type: 'boolean', default: false },
                extra: { type: 'string' },
              },
            },
          ],
        },
        '/wp/v2/no-such-collection': { methods: ['GET'], endpoints: [{ methods: ['GET'], args: {} }] },
      },
    };
    const report = compareRouteIndex(validator, index);
    expect(report.notDescribed).toEqual(['/wp/v2/no-such-collection']);
    expect(report.notOffered.map((entry) => entry.template)).toContain('/wp/v2/posts');
    const found = report.differences.map(
      (difference) => `${difference.method} ${difference.argument ?? '-'} ${difference.aspect}`,
    );
    expect(found.sort()).toEqual(
      [
        'POST - method',
        'GET format enum',
        'GET maxwidth type',
        'GET maxheight minimum',
        'GET discover default',
        'GET extra argument',
      ].sort(),
    );
    const allow: AllowEntry[] = [
      { route: '/oembed/1.0/proxy', method: 'GET', argument: 'extra', aspect: 'argument', reason: 'made up' },
      { route: '/oembed/1.0/proxy', argument: 'url', aspect: 'type', reason: 'matches nothing' },
    ];
    const triage = triageDifferences(report.differences, allow);
    expect(triage.allowed.map(({ difference }) => difference.argument)).toEqual(['extra']);
    expect(triage.unexpected).toHaveLength(5);
    expect(triage.stale).toEqual([allow[1]]);
  });
});

const allowListFile = join(dirname(fileURLToPath(import.meta.url)), '../../site-drift-allowlist.yaml');
const wordpress = await findWordPress();
const suite = 'site drift check';

describe('site spec drift against WordPress', () => {
  if (!wordpress.available) {
    wordPressUnavailable(wordpress.reason, suite);
    return;
  }

  const validator = new SpecValidator(loadBundle('site'));
  const allowList = ((parse(readFileSync(allowListFile, 'utf8')) as { entries?: AllowEntry[] } | null)
    ?.entries ?? []) as AllowEntry[];
  let report: DriftReport | undefined;
  let triage: Triage | undefined;

  it('reads the route index', async () => {
    const client = new ContractClient({
      validator,
      baseUrl: `${wordpress.url}/wp-json`,
      credentials: { basic: { username: wordpress.user, password: wordpress.password } },
    });
    const index = await client.call('getIndex', { query: { context: 'help' } });
    expect(index.status).toBe(200);
    expect(index.problems).toEqual([]);
    report = compareRouteIndex(validator, index.json as RouteIndex);
    triage = triageDifferences(report.differences, allowList);
    expect(report.compared.length).toBeGreaterThan(40);
  });

  it('every allow-list entry has a reason', () => {
    for (const entry of allowList)
      expect(entry.reason?.trim().length ?? 0, JSON.stringify(entry)).toBeGreaterThan(10);
  });

  it('has no difference that is not fixed in the spec or allow-listed', () => {
    expect(triage?.unexpected.map(describeDifference)).toEqual([]);
  });

  it('has no stale allow-list entry', () => {
    expect(triage?.stale.map((entry) => JSON.stringify(entry))).toEqual([]);
  });

  afterAll(() => {
    if (report && triage) console.log(summary(validator, report, triage, wordpress.version));
  });
});

function summary(
  validator: SpecValidator,
  report: DriftReport,
  triage: Triage,
  version: string | undefined,
): string {
  const lines: string[] = [];
  const allowedByRoute = new Map<string, number>();
  const unexpectedByRoute = new Map<string, number>();
  for (const { difference } of triage.allowed)
    allowedByRoute.set(difference.route, (allowedByRoute.get(difference.route) ?? 0) + 1);
  for (const difference of triage.unexpected)
    unexpectedByRoute.set(difference.route, (unexpectedByRoute.get(difference.route) ?? 0) + 1);
  const width = Math.max(...report.compared.map((route) => route.template.length), 10);
  lines.push('', `Site drift check against WordPress ${version ?? '(version unknown)'}`, '');
  lines.push(`${'route'.padEnd(width)}  ${'methods'.padEnd(26)} args  allowed  unexpected`);
  for (const route of report.compared) {
    lines.push(
      `${route.template.padEnd(width)}  ${route.methods.join(',').padEnd(26)} ${String(route.argumentsCompared).padStart(4)}  ${String(allowedByRoute.get(route.template) ?? 0).padStart(7)}  ${String(unexpectedByRoute.get(route.template) ?? 0).padStart(10)}`,
    );
  }
  lines.push(
    '',
    `Routes compared: ${report.compared.length}; differences: ${report.differences.length} (allowed ${triage.allowed.length}, unexpected ${triage.unexpected.length}); allow-list entries: ${triage.allowed.length === 0 ? 0 : new Set(triage.allowed.map((a) => a.entry)).size} used, ${triage.stale.length} stale`,
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
  for (const route of report.compared) {
    const operations = notServable(route.template);
    if (operations.length > 0)
      skipped.push(`  ${route.template} — arguments compared, but not servable: ${operations.join('; ')}`);
  }
  lines.push('', `SKIPPED (described by the spec, not served by the target): ${skipped.length}`, ...skipped);
  lines.push(
    '',
    `Not described by the spec (outside section 4.5, not failures): ${report.notDescribed.length}`,
  );
  lines.push(`  ${report.notDescribed.join('\n  ')}`, '');
  return lines.join('\n');

  // Operations the spec marks as newer than the target (`x-wp-since`): registered, but not served.
  function notServable(template: string): string[] {
    return validator.operations
      .filter((operation) => operation.path === template)
      .filter((operation) => {
        const since = operation.node['x-wp-since'];
        return typeof since === 'string' && (version === undefined || olderThan(version, since));
      })
      .map(
        (operation) =>
          `${operation.operationId} (x-wp-since ${String(operation.node['x-wp-since'])}, target ${version ?? 'unknown'})`,
      );
  }
}
