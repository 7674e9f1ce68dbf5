// Drift check: the site spec against each real WordPress's own description of its routes
// (`GET /wp-json/?context=help`), as the drift scenarios of the CLI's stateful phase do it
// (src/targets/site/drift-scenarios.ts), for every WordPress found (6.1 and 7.1 from
// scripts/wordpress/wordpress.sh). The machinery itself is tested first, on made-up indexes.
import { describe, expect, it } from 'vitest';
import {
  type AllowEntry,
  compareRouteIndex,
  inVersionRange,
  loadBundle,
  type RouteIndex,
  readAllowList,
  routeToTemplate,
  SpecValidator,
  triageDifferences,
} from '../../src/index.js';
import { runSiteScenarios, scenarioFailures } from './support/scenarios.js';
import { wordpressTarget } from './support/targets.js';
import { findWordPressSites, wordPressUnavailable } from './support/wordpress.js';

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
  it('compares as the target version has it: x-wp-since, x-wp-before, x-wp-no-route', () => {
    const index = (version: 'old' | 'new'): RouteIndex => ({
      routes: {
        '/batch/v1': { methods: version === 'old' ? ['POST'] : ['GET', 'POST'], endpoints: [] },
        '/wp/v2/media': {
          methods: ['GET'],
          endpoints: [
            {
              methods: ['GET'],
              // 6.1 takes one media type as a string (x-wp-before 6.9) and has no search_semantics (6.7).
              args: {
                media_type: { type: 'string', enum: ['image', 'video', 'text', 'application', 'audio'] },
              },
            },
          ],
        },
      },
    });
    const about = (report: ReturnType<typeof compareRouteIndex>, argument: string) =>
      report.differences.filter((difference) => difference.argument === argument).map((d) => d.aspect);
    const old = compareRouteIndex(validator, index('old'), { targetVersion: '6.1.9' });
    expect(about(old, 'media_type')).toEqual([]);
    expect(about(old, 'search_semantics')).toEqual([]);
    expect(old.expected).toEqual(
      expect.arrayContaining([
        { route: '/wp/v2/media', method: 'GET', argument: 'search_semantics', reason: 'x-wp-since 6.7' },
        { route: '/batch/v1', method: 'GET', reason: 'x-wp-no-route' },
      ]),
    );
    // The same index from a site that claims 7.1: the old shapes are now differences.
    const claimsNew = compareRouteIndex(validator, index('old'), { targetVersion: '7.1.4' });
    expect(about(claimsNew, 'media_type')).toEqual(['type', 'enum', 'items.enum']);
    expect(about(claimsNew, 'search_semantics')).toEqual(['argument']);
    // A GET on /batch/v1 contradicts x-wp-no-route on any version.
    const offered = compareRouteIndex(validator, index('new'), { targetVersion: '6.1.9' });
    expect(offered.differences).toContainEqual({
      route: '/batch/v1',
      method: 'GET',
      aspect: 'method',
      spec: 'x-wp-no-route',
      target: 'offered',
    });
  });

  it('applies allow-list entries to the versions they name; stale only there', () => {
    const report = compareRouteIndex(validator, {
      routes: {
        '/oembed/1.0/proxy': {
          methods: ['GET'],
          endpoints: [
            { methods: ['GET'], args: { url: { type: 'string', format: 'uri', required: true }, extra: {} } },
          ],
        },
      },
    });
    const extra = report.differences.filter((difference) => difference.argument === 'extra');
    expect(extra).toHaveLength(1);
    const allow: AllowEntry[] = [
      {
        route: '/oembed/1.0/proxy',
        argument: 'extra',
        aspect: 'argument',
        versions: '<6.3',
        reason: 'old only',
      },
      {
        route: '/oembed/1.0/proxy',
        argument: ['url', 'x'],
        aspect: 'type',
        versions: ['6.9', '>=7.0'],
        reason: 'new',
      },
    ];
    const old = triageDifferences(extra, allow, '6.1.9');
    expect(old.allowed).toHaveLength(1);
    expect(old.stale).toEqual([]);
    expect(old.notApplicable).toEqual([allow[1]]);
    const current = triageDifferences(extra, allow, '7.1.4');
    expect(current.unexpected).toEqual(extra);
    expect(current.stale).toEqual([allow[1]]);
    // A target of unknown version: any entry may match, and only entries without versions go stale.
    expect(triageDifferences(extra, allow, undefined)).toMatchObject({ allowed: [{}], stale: [] });
  });

  it('reads version ranges', () => {
    expect(inVersionRange('6.1.9', '>=6.1 <6.3')).toBe(true);
    expect(inVersionRange('6.3', '>=6.1 <6.3')).toBe(false);
    expect(inVersionRange('6.1.9', '6.1')).toBe(true);
    expect(inVersionRange('6.10.1', '6.1')).toBe(false);
    expect(inVersionRange('7.1.4', ['6.1', '>=7'])).toBe(true);
    expect(inVersionRange('6.9', '>6.8.9 <=6.9')).toBe(true);
    expect(() => inVersionRange('6.1', 'newer')).toThrow(/not a version range/);
  });

  it('the allow list reads, and its version ranges parse', () => {
    for (const entry of readAllowList())
      if (entry.versions !== undefined)
        expect(() => inVersionRange('6.1', entry.versions ?? '')).not.toThrow();
  });
});

const sites = await findWordPressSites();

describe('site spec drift', () => {
  for (const site of sites) {
    if (!site.available) {
      wordPressUnavailable(site.reason, 'site drift check', site.name);
      continue;
    }
    it(`has no unexplained difference from the route index of ${site.name}`, async () => {
      const run = await runSiteScenarios(wordpressTarget(site), ['drift']);
      expect(run.report.fatal).toBeUndefined();
      expect(scenarioFailures(run)).toEqual([]);
      expect(run.scenarios.map((result) => result.outcome)).toEqual(['passed', 'passed', 'passed', 'passed']);
    }, 120_000);
  }
});
