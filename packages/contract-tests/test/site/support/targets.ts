// The servers the site contract suite runs against: the Prism mock of the site spec (./prism.ts) and
// real WordPress sites.
import { existsSync, readFileSync } from 'node:fs';
import * as zlib from 'node:zlib';
import { deflateSync } from 'node:zlib';
import type { Credentials } from '../../../src/index.js';
import type { WordPressSite } from './wordpress.js';

export interface SiteTarget {
  /** `prism`, or `WordPress 7.1.4`: how test names and summaries call it. */
  name: string;
  /** A real server: state persists between calls and error codes mean something. */
  real: boolean;
  /** The spec's server URL (`…/wp-json`). */
  baseUrl: string;
  credentials: Credentials;
  /** WordPress version, when known (decides what `x-wp-since` operations it can serve). */
  version: string | undefined;
  /** The real site, for calls outside the spec (users, menus). */
  site: WordPressSite | undefined;
  close(): Promise<void>;
  /** The end of the server's own log, for failures that are not HTTP answers (a crashed mock). */
  logTail(): string;
}

export function wordpressTarget(site: WordPressSite): SiteTarget {
  return {
    name: site.name,
    real: true,
    baseUrl: `${site.url}/wp-json`,
    credentials: { basic: { username: site.user, password: site.password } },
    version: site.version,
    site,
    close: async () => {},
    logTail: () => {
      if (!site.log || !existsSync(site.log)) return `(no log of ${site.url} on this machine)`;
      return readFileSync(site.log, 'utf8').slice(-4_000);
    },
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
