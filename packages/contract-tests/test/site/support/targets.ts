// The servers the site contract suite runs against: the Prism mock of the site spec (answers the
// spec's own examples; `Prefer: code=N` picks the documented response) and the real WordPress.
import { Writable } from 'node:stream';
import * as zlib from 'node:zlib';
import { deflateSync } from 'node:zlib';
import { startMock } from '@platform-api/mock';
import { type Credentials, freePort } from '../../../src/index.js';
import type { WordPressSite } from './wordpress.js';

export interface SiteTarget {
  name: 'prism' | 'wordpress';
  /** A real server: state persists between calls and error codes mean something. */
  real: boolean;
  /** The spec's server URL (`…/wp-json`). */
  baseUrl: string;
  credentials: Credentials;
  /** Ids of seeded content (WordPress) or any ids (the mock serves every id). */
  seeds: { post: number; page: number; media: number; block: number; menu: number; menuItem: number };
  /** WordPress version, when known (decides what `x-wp-since` operations it can serve). */
  version: string | undefined;
  close(): Promise<void>;
  /** The end of the server's own log, for failures that are not HTTP answers (a crashed mock). */
  logTail(): string;
}

export async function startPrismTarget(): Promise<SiteTarget> {
  let log = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      log = (log + String(chunk)).slice(-20_000);
      done();
    },
  });
  const mock = await startMock('site', { port: await freePort(), log: sink });
  return {
    name: 'prism',
    real: false,
    baseUrl: mock.url,
    // Prism only checks that Basic credentials are present.
    credentials: { basic: { username: 'contract-tests', password: 'any-application-password' } },
    seeds: { post: 4, page: 7, media: 13, block: 10, menu: 4, menuItem: 14 },
    version: undefined,
    close: () => mock.close(),
    logTail: () => log.slice(-4_000),
  };
}

export function wordpressTarget(site: WordPressSite): SiteTarget {
  const seed = (name: string) => {
    const id = site.seeds[name];
    if (id === undefined) throw new Error(`WORDPRESS_SEED_${name}_ID missing from the WordPress env file`);
    return id;
  };
  return {
    name: 'wordpress',
    real: true,
    baseUrl: `${site.url}/wp-json`,
    credentials: { basic: { username: site.user, password: site.password } },
    seeds: {
      post: seed('POST'),
      page: seed('PAGE'),
      media: seed('MEDIA'),
      block: seed('BLOCK'),
      menu: seed('MENU'),
      menuItem: seed('MENU_ITEM'),
    },
    version: site.version,
    close: async () => {},
    logTail: () => `see ${site.url} logs: .state/wordpress/logs/php-server.log`,
  };
}

/** A small valid PNG (solid colour, RGB) so that WordPress can make sub-sizes and edit it. */
export function pngImage(width = 120, height = 90): Uint8Array {
  const crc32 = (zlib as unknown as { crc32: (data: Uint8Array) => number }).crc32;
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, Buffer.from([40, 120, 200]))]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', deflateSync(pixels)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}
