// Finds the real WordPress sites the site suites run against:
// - WORDPRESS_URL / WORDPRESS_USER / WORDPRESS_APP_PASSWORD from the environment (one site), else
// - every env file `scripts/wordpress/wordpress.sh up` writes, one per WordPress version
//   (`<repo>/.state/wordpress/<line>/env`, or `$WORDPRESS_STATE_DIR/<line>/env`).
// A site that does not answer is skipped loudly — or, under CI=true or WORDPRESS_REQUIRED=true, fails.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unavailable } from '@platform-api/test-support';
import { compareVersions } from '../../../src/index.js';
import { feedVersion } from '../../../src/targets/site/wordpress-rest.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');

export interface WordPressSite {
  available: true;
  /** `WordPress 7.1.4` — how test names call the site. */
  name: string;
  url: string;
  user: string;
  password: string;
  /** `7.1.4`; undefined when neither the env file nor the site's feed says. */
  version: string | undefined;
  /** Where its request and PHP error log is, when wordpress.sh runs it. */
  log: string | undefined;
}

export interface WordPressUnavailable {
  available: false;
  name: string;
  reason: string;
}

export type WordPressTarget = WordPressSite | WordPressUnavailable;

function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Z0-9_]+)=(.*)$/.exec(line);
    if (match?.[1]) values[match[1]] = (match[2] ?? '').trim().replace(/^(['"])(.*)\1$/, '$2');
  }
  return values;
}

let cached: Promise<WordPressTarget[]> | undefined;

/** Every WordPress to test, oldest first; at least one entry (an unavailable one says why none). */
export function findWordPressSites(): Promise<WordPressTarget[]> {
  cached ??= discover();
  return cached;
}

async function discover(): Promise<WordPressTarget[]> {
  const { WORDPRESS_URL: url, WORDPRESS_USER: user, WORDPRESS_APP_PASSWORD: password } = process.env;
  if (url) {
    if (!user || !password)
      return [
        {
          available: false,
          name: url,
          reason: 'WORDPRESS_URL is set without WORDPRESS_USER/WORDPRESS_APP_PASSWORD',
        },
      ];
    return [await probe({ url, user, password, version: process.env.WORDPRESS_VERSION, log: undefined })];
  }
  const stateDir = process.env.WORDPRESS_STATE_DIR ?? join(repoRoot, '.state/wordpress');
  const envFiles = existsSync(stateDir)
    ? readdirSync(stateDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(stateDir, entry.name, 'env')))
        .map((entry) => join(stateDir, entry.name, 'env'))
    : [];
  if (envFiles.length === 0) {
    return [
      {
        available: false,
        name: 'WordPress',
        reason: `no WORDPRESS_URL in the environment and no env file in ${stateDir}/*/env`,
      },
    ];
  }
  const sites = await Promise.all(
    envFiles.map((file) => {
      const values = parseEnvFile(readFileSync(file, 'utf8'));
      if (!values.WORDPRESS_URL || !values.WORDPRESS_USER || !values.WORDPRESS_APP_PASSWORD) {
        return {
          available: false,
          name: file,
          reason: `${file} lacks WORDPRESS_URL/USER/APP_PASSWORD`,
        } as const;
      }
      return probe({
        url: values.WORDPRESS_URL,
        user: values.WORDPRESS_USER,
        password: values.WORDPRESS_APP_PASSWORD,
        version: values.WORDPRESS_VERSION,
        log: join(dirname(file), 'logs/php-server.log'),
      });
    }),
  );
  return sites.sort((a, b) => compareVersions(versionOf(a), versionOf(b)));
}

function versionOf(target: WordPressTarget): string {
  return (target.available ? target.version : /[\d.]+$/.exec(target.name)?.[0]) ?? '0';
}

async function probe(site: {
  url: string;
  user: string;
  password: string;
  version: string | undefined;
  log: string | undefined;
}): Promise<WordPressTarget> {
  const url = site.url.replace(/\/$/, '');
  const label = (version: string | undefined) => `WordPress ${version ?? '(version unknown)'} at ${url}`;
  try {
    const response = await fetch(`${url}/wp-json/`, { signal: AbortSignal.timeout(5_000) });
    await response.arrayBuffer();
    if (response.status !== 200)
      return {
        available: false,
        name: label(site.version),
        reason: `GET ${url}/wp-json/ answered ${response.status}`,
      };
  } catch (error) {
    return {
      available: false,
      name: label(site.version),
      reason: `${url} does not answer (${(error as Error).message})`,
    };
  }
  const version = site.version ?? (await siteVersion(url));
  return { ...site, available: true, url, version, name: `WordPress ${version ?? '(version unknown)'}` };
}

/** The version a site's feed names (the CLI's own reader), asked with a plain fetch. */
function siteVersion(url: string): Promise<string | undefined> {
  return feedVersion(async (request) => {
    const response = await fetch(request.url, { signal: AbortSignal.timeout(5_000) });
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      json: undefined,
    };
  }, url);
}

/**
 * Stands in for a suite when WordPress does not answer (see unavailable.ts); WORDPRESS_REQUIRED=true makes
 * it a failure as CI=true does.
 */
export function wordPressUnavailable(reason: string, suite: string, site = 'WordPress'): void {
  unavailable(`${suite} against ${site}`, `${reason}; run bash scripts/wordpress/wordpress.sh up`, {
    required: process.env.WORDPRESS_REQUIRED === 'true',
  });
}
