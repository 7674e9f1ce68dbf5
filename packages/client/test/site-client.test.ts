import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { createSiteClient, type SiteClientOptions } from '../src/index.js';
import { json, type RecordedRequest } from './support/fake-fetch.js';

function recordingFetch() {
  const requests: RecordedRequest[] = [];
  const fetch = async (input: Request) => {
    requests.push({
      method: input.method,
      url: new URL(input.url),
      headers: input.headers,
      body: await input.text(),
    });
    return json({ name: 'Site', namespaces: ['wp/v2'] });
  };
  return { fetch, requests };
}

describe('createSiteClient', () => {
  it('sends the application password with HTTP Basic on every call', async () => {
    const site = recordingFetch();
    const client = createSiteClient({
      baseUrl: 'https://site.test/wp-json/',
      username: 'editor',
      applicationPassword: 'abcd EFGH 1234 ijkl',
      fetch: site.fetch,
    });

    const { data } = await client.GET('/');
    await client.GET('/');

    expect(data).toEqual({ name: 'Site', namespaces: ['wp/v2'] });
    expect(site.requests.map((r) => r.url.href)).toEqual([
      'https://site.test/wp-json/',
      'https://site.test/wp-json/',
    ]);
    for (const request of site.requests) {
      expect(request.headers.get('authorization')).toBe(
        `Basic ${Buffer.from('editor:abcd EFGH 1234 ijkl').toString('base64')}`,
      );
    }
  });

  it('is anonymous without credentials', async () => {
    const site = recordingFetch();
    await createSiteClient({ baseUrl: 'https://site.test/wp-json', fetch: site.fetch }).GET('/');
    expect(site.requests[0]?.headers.has('authorization')).toBe(false);
  });

  it('refuses a user name without an application password (and the reverse)', () => {
    const halfCredentials = [
      { baseUrl: 'https://site.test/wp-json', username: 'editor' },
      { baseUrl: 'https://site.test/wp-json', applicationPassword: 'abcd' },
    ] as unknown as SiteClientOptions[];
    for (const options of halfCredentials) {
      expect(() => createSiteClient(options)).toThrow(TypeError);
    }
  });
});
