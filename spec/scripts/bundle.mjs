// Bundles every API listed in ../redocly.yaml into dist/<name>.openapi.{yaml,json}.
// The name is the API alias without its version (platform@v1 -> platform).
// The code-samples decorator (scripts/code-samples.js) puts spec/samples/<api>/ into every operation as
// x-codeSamples and fails the bundle when an operation has no TypeScript or curl sample; this script then
// fails when a sample file names no operation of its API's bundle, so samples rot in neither direction.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleFiles, sampleKinds, samplesDir } from './code-samples.js';
import { redoclyApis, redoclyConfigPath } from './redocly-config.mjs';

const specDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const redocly = join(specDir, 'node_modules', '.bin', 'redocly');

mkdirSync(join(specDir, 'dist'), { recursive: true });
for (const { alias, name } of redoclyApis()) {
  for (const ext of ['yaml', 'json']) {
    try {
      execFileSync(
        redocly,
        [
          'bundle',
          alias,
          '--config',
          redoclyConfigPath,
          '--output',
          join(specDir, 'dist', `${name}.openapi.${ext}`),
        ],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
          cwd: specDir,
        },
      );
    } catch {
      // Redocly has printed why (e.g. an operation without its code samples).
      console.error(`bundling ${alias} failed`);
      process.exit(1);
    }
  }
  console.log(`bundled ${alias} -> dist/${name}.openapi.{yaml,json}`);
}

// Sample files without an operation: spec/samples/<api>/ belongs to the bundle of the same name.
const orphans = [];
for (const api of existsSync(samplesDir) ? readdirSync(samplesDir, { withFileTypes: true }) : []) {
  if (!api.isDirectory()) continue;
  const bundle = join(specDir, 'dist', `${api.name}.openapi.json`);
  if (!existsSync(bundle)) {
    orphans.push(`spec/samples/${api.name}/: no API named ${api.name} in redocly.yaml`);
    continue;
  }
  const operationIds = new Set(
    Object.values(JSON.parse(readFileSync(bundle, 'utf8')).paths ?? {}).flatMap((item) =>
      Object.values(item).map((operation) => operation?.operationId),
    ),
  );
  const extensions = new Set(sampleKinds.map((kind) => kind.extension));
  for (const [operationId, files] of sampleFiles(api.name)) {
    for (const [extension, path] of files) {
      const file = `spec/samples/${api.name}/${path.split('/').pop()}`;
      if (!extensions.has(extension)) orphans.push(`${file}: not a sample (${[...extensions].join(', ')})`);
      else if (!operationIds.has(operationId))
        orphans.push(`${file}: no operation ${operationId} in ${api.name}`);
    }
  }
}
if (orphans.length > 0) {
  console.error(`Code samples without an operation (rename or delete them):\n  ${orphans.join('\n  ')}`);
  process.exit(1);
}
