// Redocly decorator plugin: puts the code samples of spec/samples/<api>/<operationId>.{ts,sh,py} into
// every operation as Redoc's `x-codeSamples`. A decorator (not a post-processing step) so that every
// Redocly command that bundles — `bundle` and `build-docs` alike — shows the same samples.
// Loaded by redocly.yaml (`plugins`, `decorators: code-samples/inject: on`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const specDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const samplesDir = join(specDir, 'samples');

/** The sample kinds, in the order Redoc shows them; `required` ones must exist for every operation. */
export const sampleKinds = [
  { extension: '.ts', lang: 'TypeScript', label: 'TypeScript', required: true },
  { extension: '.sh', lang: 'Shell', label: 'curl', required: true },
  { extension: '.py', lang: 'Python', label: 'Python (pydomo)', required: false },
];

/** The sample files of one API's folder: operationId -> extension -> absolute path. */
export function sampleFiles(api) {
  const dir = join(samplesDir, api);
  const files = new Map();
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir)) {
    const extension = extname(name);
    const operationId = name.slice(0, -extension.length);
    if (!files.has(operationId)) files.set(operationId, new Map());
    files.get(operationId).set(extension, join(dir, name));
  }
  return files;
}

/**
 * The API a description file belongs to: its first folder under spec/ (spec/platform/paths/x.yaml ->
 * platform). The platform and platform-public bundles share spec/platform, and so their samples.
 */
function apiOf(absoluteRef) {
  return relative(specDir, absoluteRef).split(sep)[0];
}

/** The `x-codeSamples` of one operation; throws when a required sample is missing. */
export function codeSamplesFor(api, operationId, files = sampleFiles(api)) {
  const found = files.get(operationId) ?? new Map();
  const missing = sampleKinds.filter((kind) => kind.required && !found.has(kind.extension));
  if (missing.length > 0) {
    const paths = missing.map((kind) => `spec/samples/${api}/${operationId}${kind.extension}`);
    throw new Error(`Operation ${operationId} (${api}) has no code sample: write ${paths.join(' and ')}`);
  }
  return sampleKinds
    .filter((kind) => found.has(kind.extension))
    .map(({ extension, lang, label }) => ({
      lang,
      label,
      source: readFileSync(found.get(extension), 'utf8').trimEnd(),
    }));
}

function injectCodeSamples() {
  const filesByApi = new Map();
  return {
    // Operations under `paths` only: webhooks are calls the API makes, not calls a reader writes.
    Paths: {
      Operation: {
        leave(operation, ctx) {
          if (typeof operation.operationId !== 'string') return;
          const api = apiOf(ctx.location.source.absoluteRef);
          if (!filesByApi.has(api)) filesByApi.set(api, sampleFiles(api));
          operation['x-codeSamples'] = codeSamplesFor(api, operation.operationId, filesByApi.get(api));
        },
      },
    },
  };
}

export default function codeSamplesPlugin() {
  return {
    id: 'code-samples',
    decorators: {
      oas3: { inject: injectCodeSamples },
    },
  };
}
