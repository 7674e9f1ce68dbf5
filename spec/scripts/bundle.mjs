// Bundles every API listed in ../redocly.yaml into dist/<name>.openapi.{yaml,json}.
// The name is the API alias without its version (platform@v1 -> platform).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const specDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const config = join(specDir, '..', 'redocly.yaml');
const redocly = join(specDir, 'node_modules', '.bin', 'redocly');

// The apis block is simple YAML (two-space indented "name@version:" keys): no parser needed.
const aliases = [...readFileSync(config, 'utf8').matchAll(/^ {2}([a-z-]+@v\d+):\s*$/gm)].map((m) => m[1]);
mkdirSync(join(specDir, 'dist'), { recursive: true });
for (const alias of aliases) {
  const name = alias.split('@')[0];
  for (const ext of ['yaml', 'json']) {
    execFileSync(
      redocly,
      ['bundle', alias, '--config', config, '--output', join(specDir, 'dist', `${name}.openapi.${ext}`)],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        cwd: specDir,
      },
    );
  }
  console.log(`bundled ${alias} -> dist/${name}.openapi.{yaml,json}`);
}
