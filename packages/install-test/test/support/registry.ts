// A throwaway npm registry (Verdaccio) on a free loopback port, serving only what is published to it: the
// `@platform-api` scope, with no uplink — it never asks another registry for anything.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort, startProcess } from '@platform-api/test-support';

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** A user config (`NPM_CONFIG_USERCONFIG`) holding a token for this registry, as `npm publish` needs one. */
  publisherConfig: string;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

export async function startLocalRegistry(dir: string): Promise<LocalRegistry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `storage: ${join(dir, 'storage')}
auth:
  htpasswd:
    file: ${join(dir, 'htpasswd')}
uplinks: {}
packages:
  '@platform-api/*':
    access: $all
    publish: $all
  '**':
    access: $all
web:
  enable: false
middlewares:
  audit:
    enabled: false
log: { type: stdout, format: pretty, level: warn }
`,
  );
  // Verdaccio accepts anonymous publishes here ($all), but npm sends none without a token for the registry.
  const publisherConfig = join(dir, 'publisher.npmrc');
  writeFileSync(publisherConfig, `//127.0.0.1:${port}/:_authToken=throwaway\n`);
  const bin = join(dirname(require.resolve('verdaccio/package.json')), 'bin', 'verdaccio');
  const verdaccio = await startProcess(
    'Verdaccio',
    process.execPath,
    [bin, '--config', config, '--listen', `127.0.0.1:${port}`],
    { ready: `${url}-/ping`, onLine: () => {} },
  );
  return { url, publisherConfig, stop: () => verdaccio.stop() };
}
