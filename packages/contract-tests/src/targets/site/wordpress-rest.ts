// Calls to WordPress routes outside the site spec (users, application passwords, menus), which the
// scenarios need around what they check: a subscriber to be refused (403) and a menu for menu items. They
// go through the run's Session, so they are counted with the rest of the run's requests.
import type { Answer, SentRequest } from '../../client.js';
import type { SiteHarness } from './harness.js';

export type RestCall = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

/**
 * Authenticated JSON calls (as the target's administrator) to `…/wp-json<path>`; a non-2xx throws, and a
 * scenario that fails shows the request.
 */
export function restApi(harness: SiteHarness): RestCall {
  const { session, target } = harness;
  const { username, password } = target.credentials.basic;
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  return async (method, path, body) => {
    const request = {
      method,
      url: `${target.baseUrl}${path}`,
      headers: { authorization, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    };
    harness.lastExchange = { request };
    const answer: Answer = await session.sendUndocumented(request);
    harness.lastExchange = { request, answer };
    if (answer.status < 200 || answer.status >= 300 || typeof answer.json !== 'object' || !answer.json)
      throw new Error(`${method} ${path} → ${answer.status} ${answer.text.slice(0, 300)}`);
    return answer.json as Record<string, unknown>;
  };
}

export interface SiteUser {
  username: string;
  password: string;
  remove(): Promise<void>;
}

/**
 * Makes a user with a lower role and an application password, through the users API: requests with it
 * show what WordPress refuses a logged-in user (403).
 */
export async function createUser(api: RestCall, role: string, name: string): Promise<SiteUser> {
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

/** Makes a navigation menu (for menu items to belong to); returns its id and how to delete it. */
export async function createMenu(
  api: RestCall,
  name: string,
): Promise<{ id: number; remove(): Promise<unknown> }> {
  const menu = await api('POST', '/wp/v2/menus', { name });
  const id = menu.id as number;
  return { id, remove: () => api('DELETE', `/wp/v2/menus/${id}?force=true`) };
}

/**
 * The version a site names in its RSS feed's generator (`…/?v=7.1.4`); `send` is how the request goes out
 * (counted by the run's session, or not, as the caller decides).
 */
export async function feedVersion(
  send: (request: SentRequest) => Promise<Answer>,
  siteUrl: string,
): Promise<string | undefined> {
  try {
    const answer = await send({ method: 'GET', url: `${siteUrl}/?feed=rss2`, headers: {} });
    return /<generator>https?:\/\/wordpress\.org\/\?v=([\d.]+)<\/generator>/.exec(answer.text)?.[1];
  } catch {
    return undefined;
  }
}
