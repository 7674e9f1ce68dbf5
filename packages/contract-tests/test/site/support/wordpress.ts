// Finds the real WordPress the site suites run against: WORDPRESS_URL / WORDPRESS_USER /
// WORDPRESS_APP_PASSWORD from the environment, else the env file `scripts/wordpress/wordpress.sh up`
// writes (`<repo>/.state/wordpress/env`, or `$WORDPRESS_STATE_DIR/env`). When it does not answer, the
// WordPress half of a suite is skipped loudly — or, under CI=true, fails with the same message.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');

export interface WordPressSite {
  available: true;
  url: string;
  user: string;
  password: string;
  /** `WORDPRESS_SEED_*` ids from the env file (POST, PAGE, MEDIA, BLOCK, MENU, MENU_ITEM). */
  seeds: Record<string, number>;
  /** `6.1.9`, from the site's feed generator; undefined when the site does not say. */
  version: string | undefined;
}

export interface WordPressUnavailable {
  available: false;
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

let cached: Promise<WordPressTarget> | undefined;

export function findWordPress(): Promise<WordPressTarget> {
  cached ??= probe();
  return cached;
}

async function probe(): Promise<WordPressTarget> {
  const stateDir = process.env.WORDPRESS_STATE_DIR ?? join(repoRoot, '.state/wordpress');
  const envFile = join(stateDir, 'env');
  const fromFile = existsSync(envFile) ? parseEnvFile(readFileSync(envFile, 'utf8')) : {};
  const setting = (name: string) => process.env[name] || fromFile[name];
  const url = setting('WORDPRESS_URL');
  const user = setting('WORDPRESS_USER');
  const password = setting('WORDPRESS_APP_PASSWORD');
  if (!url || !user || !password) {
    return {
      available: false,
      reason: `no WORDPRESS_URL/WORDPRESS_USER/WORDPRESS_APP_PASSWORD in the environment or in ${envFile}`,
    };
  }
  try {
    const response = await fetch(`${url.replace(/\/$/, '')}/wp-json/`, {
      signal: AbortSignal.timeout(5_000),
    });
    if (response.status !== 200)
      return { available: false, reason: `GET ${url}/wp-json/ answered ${response.status}` };
    await response.arrayBuffer();
  } catch (error) {
    return { available: false, reason: `${url} does not answer (${(error as Error).message})` };
  }
  const seeds: Record<string, number> = {};
  for (const [name, value] of Object.entries({ ...fromFile, ...process.env })) {
    const match = /^WORDPRESS_SEED_([A-Z_]+)_ID$/.exec(name);
    if (match?.[1] && value && /^\d+$/.test(value)) seeds[match[1]] = Number(value);
  }
  return {
    available: true,
    url: url.replace(/\/$/, ''),
    user,
    password,
    seeds,
    version: await siteVersion(url),
  };
}

async function siteVersion(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${url.replace(/\/$/, '')}/?feed=rss2`, {
      signal: AbortSignal.timeout(5_000),
    });
    const text = await response.text();
    return /<generator>https?:\/\/wordpress\.org\/\?v=([\d.]+)<\/generator>/.exec(text)?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Registers what stands in for a suite when WordPress does not answer: under CI=true a failing test
 * (the suite must run there), elsewhere a skipped one, announced loudly with the reason.
 */
export function wordPressUnavailable(reason: string, suite: string): void {
  const message = `*** SKIPPED: ${suite} against WordPress — ${reason}; run bash scripts/wordpress/wordpress.sh up ***`;
  if (process.env.CI === 'true') {
    it('needs WordPress (CI=true)', () => {
      throw new Error(message);
    });
    return;
  }
  console.warn(`\n${message}\n`);
  it.skip(message, () => {});
}

/** Compares dotted versions: is `version` older than `since`? */
export function olderThan(version: string, since: string): boolean {
  const a = version.split('.').map(Number);
  const b = since.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff < 0;
  }
  return false;
}

export interface SiteUser {
  username: string;
  password: string;
  remove(): Promise<void>;
}

/**
 * Makes a user with a lower role and an application password, through the users API (outside the
 * site spec, so plain fetch): requests with it show what WordPress refuses a logged-in user (403).
 */
export async function createUser(site: WordPressSite, role: string, name: string): Promise<SiteUser> {
  const authorization = `Basic ${Buffer.from(`${site.user}:${site.password}`).toString('base64')}`;
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${site.url}/wp-json${path}`, {
      method,
      headers: { authorization, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok)
      throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  };
  const user = await api('POST', '/wp/v2/users', {
    username: name,
    email: `${name}@example.org`,
    password: `${name}-${Math.random().toString(36).slice(2)}A1!`,
    roles: [role],
  });
  const id = user.id as number;
  const me = await api('GET', '/wp/v2/users/me');
  const application = await api('POST', `/wp/v2/users/${id}/application-passwords`, {
    name: 'contract-tests',
  });
  return {
    username: name,
    password: String(application.password),
    remove: async () => {
      await api('DELETE', `/wp/v2/users/${id}?force=true&reassign=${me.id as number}`);
    },
  };
}
