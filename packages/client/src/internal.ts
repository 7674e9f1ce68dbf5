// For this repository only (the reference server, its chat samples): the whole platform API, x-internal
// operations included. Not part of the published package (package.json publishConfig and files leave it
// out), which is generated from the public bundle.
import type { paths } from './generated/platform-internal.js';
import { operationSecurity } from './generated/platform-internal.security.js';
import { buildPlatformClient, type PlatformClientOf, type PlatformClientOptions } from './platform-client.js';

export type { $defs, components, operations, paths, webhooks } from './generated/platform-internal.js';

export type InternalPlatformClient = PlatformClientOf<paths>;

/** `createPlatformClient` over the whole platform API (its x-internal operations too). */
export function createInternalPlatformClient(options: PlatformClientOptions): InternalPlatformClient {
  return buildPlatformClient<paths>(options, operationSecurity, 'createInternalPlatformClient');
}
