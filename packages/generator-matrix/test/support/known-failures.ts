// The cells that are known not to pass, each with its reason: a generator's limitation (with its upstream
// issue) where the description is right and portable spellings are exhausted. The matrix test fails when a
// cell fails that is not listed here, and when a listed one passes (then the line goes). The platform
// bundle and the site bundle's openapi-generator validation, `typescript-fetch` and `python` may have none.
import type { BundleName } from './generators.js';

/** A walk's stage names the server it walks (./walks.ts, WALK_SERVERS). */
export type WalkStage = 'walk the reference server' | 'walk the platform mock';
export type Stage = 'generate' | 'compile' | WalkStage;

export interface KnownFailure {
  generator: string;
  bundle: BundleName;
  stage: Stage;
  reason: string;
  upstream?: string;
}

export const KNOWN_FAILURES: KnownFailure[] = [
  {
    generator: 'openapi-generator-java',
    bundle: 'site',
    stage: 'compile',
    reason:
      'every `oneOf`/`anyOf` with an array or map member (WordPress answers `[]` for an empty object; term ' +
      "filters' id lists, batch header values, error `params`) becomes a generic class literal such as " +
      '`List<Integer>.class`, which does not compile; fixed for the `okhttp-gson` library, not for `native`. ' +
      'The unions are what WordPress answers, so they stay',
    upstream: 'https://github.com/OpenAPITools/openapi-generator/issues/17745',
  },
];

/** Cells the project promises to pass: a known failure there is itself a failure. */
export function mustPass(generator: string, bundle: BundleName): boolean {
  if (bundle === 'platform-portable') return true;
  return [
    'openapi-generator-validate',
    'openapi-generator-typescript-fetch',
    'openapi-generator-python',
  ].includes(generator);
}
