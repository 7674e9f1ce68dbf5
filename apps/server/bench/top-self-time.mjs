// The top self-time entries of a V8 CPU profile (`node --cpu-prof`), as markdown tables: by function, then
// by package. Self time is where the CPU was, not what called it: the place to look first.
//
//   node apps/server/bench/top-self-time.mjs PROFILE.cpuprofile [--top 20]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '20' } },
  allowPositionals: true,
});
if (positionals.length === 0) {
  console.error('usage: node apps/server/bench/top-self-time.mjs PROFILE.cpuprofile [--top 20]');
  process.exit(2);
}
const top = Number(values.top);
const root = fileURLToPath(new URL('../../../', import.meta.url));

/** A script URL as a reader wants it: a package name and its file, or a path in the repository. */
function where(url) {
  if (!url) return '';
  if (!url.startsWith('file://')) return url;
  const path = fileURLToPath(url);
  const inPackage = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  return inPackage ? `${inPackage[1]}/${inPackage[2]}` : relative(root, path);
}

/** The package (or repository folder, or `node:` internals) a script belongs to. */
function area(url, functionName) {
  // No script: V8's own entries, "(garbage collector)" and the like, or a native function (a binding).
  if (!url)
    return functionName.startsWith('(') ? '(V8: garbage collector, program)' : 'native (bindings, builtins)';
  if (url.startsWith('node:')) return 'node: internals';
  const place = where(url);
  const inPackage = /^(?:node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(place);
  if (url.includes('/node_modules/')) return inPackage?.[1] ?? place;
  return place.split('/').slice(0, 2).join('/');
}

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  // Each sample's time is the delta to the next one (the last sample gets none).
  const selfMicros = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  const byFunction = new Map();
  const byArea = new Map();
  let total = 0;
  let idle = 0;
  for (const [id, micros] of selfMicros) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    total += micros;
    if (functionName === '(idle)') {
      idle += micros;
      continue;
    }
    const place = url
      ? `${where(url)}:${lineNumber + 1}`
      : functionName.startsWith('(')
        ? '(V8)'
        : '(native)';
    const key = `${functionName || '(anonymous)'}\t${place}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
    const owner = area(url, functionName);
    byArea.set(owner, (byArea.get(owner) ?? 0) + micros);
  }
  const busy = total - idle;
  const percent = (micros) => `${((micros / busy) * 100).toFixed(1)} %`;
  const ranked = (map) => [...map].sort((a, b) => b[1] - a[1]);

  console.log(
    `\n${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (not idle)\n`,
  );
  console.log('| self ms | % of busy | function | where |');
  console.log('|---:|---:|---|---|');
  for (const [key, micros] of ranked(byFunction).slice(0, top)) {
    const [name, place] = key.split('\t');
    console.log(`| ${(micros / 1000).toFixed(0)} | ${percent(micros)} | \`${name}\` | ${place} |`);
  }
  console.log('\n| self ms | % of busy | package or folder |');
  console.log('|---:|---:|---|');
  for (const [name, micros] of ranked(byArea).slice(0, Math.min(top, 12))) {
    console.log(`| ${(micros / 1000).toFixed(0)} | ${percent(micros)} | ${name} |`);
  }
}
