// The API's change control: compares each published API description (the public platform bundle and
// the site bundle) with the one of the last release, using Optic's breaking-change rules.
//
//   node scripts/api-changes.mjs --check               fail on a breaking change that is neither
//                                                      released as a new major info.version nor
//                                                      acknowledged in ../acknowledged-breaking-changes.yaml
//   node scripts/api-changes.mjs --changelog FILE      write the changelog (Markdown) of every release
//                                                      and of the unreleased changes
//   --base REF | --base-dir DIR   compare with a git ref, or with a copy of the repository (redocly.yaml
//   --head-dir DIR                and spec/) instead of the last release and the working tree
//   --api NAME                    one API only (platform-public or site)
//
// The last release is the newest tag `@platform-api/spec@<version>` (what `changeset tag` creates); with
// none, the merge base with main.
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';

const specDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(specDir, '..');
const bin = (name) => join(specDir, 'node_modules', '.bin', name);

/** The bundles clients are generated from; x-internal operations (reference server only) may change freely. */
const GATED_APIS = [
  { alias: 'platform-public@v1', name: 'platform-public', title: 'Platform API' },
  { alias: 'site@v2', name: 'site', title: 'Content site API' },
];
const RELEASE_TAG = '@platform-api/spec@';
const METHODS = 'GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE';

const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/**
 * Ends the run as the signal would (128 + its number), through process.exit so that the scratch folder goes:
 * on our own signal, or when the tool running died of one (a Ctrl-C reaches the whole process group).
 */
function exitIfInterrupted(signal) {
  if (signal && INTERRUPTS.includes(signal)) process.exit(128 + osConstants.signals[signal]);
}

/**
 * Runs Redocly or Optic (the long steps) without blocking: a signal to this process is handled at once,
 * not after every synchronous step.
 */
function runTool(command, args, options) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (status, signal) => {
      exitIfInterrupted(signal);
      resolvePromise({ status, signal, stdout, stderr });
    });
  });
}

const { values: options } = parseArgs({
  options: {
    help: { type: 'boolean', short: 'h', default: false },
    check: { type: 'boolean', default: false },
    changelog: { type: 'string' },
    base: { type: 'string' },
    'base-dir': { type: 'string' },
    'head-dir': { type: 'string' },
    api: { type: 'string' },
  },
});
if (options.help) {
  // The usage is this file's opening comment.
  const source = readFileSync(fileURLToPath(import.meta.url), 'utf8');
  const header = source.slice(0, source.indexOf('\nimport '));
  console.log(header.replace(/^\/\/ ?/gm, ''));
  process.exit(0);
}
// `--api platform-public`: one API only.
const apis = GATED_APIS.filter((api) => !options.api || api.name === options.api);
if (apis.length === 0)
  throw new Error(`--api must be one of ${GATED_APIS.map((api) => api.name).join(', ')}`);

function git(...args) {
  return execFileSync('git', args, {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
}

/** Release tags reachable from HEAD, oldest first. */
function releaseTags() {
  let tags = [];
  try {
    tags = git('tag', '--merged', 'HEAD', '--list', `${RELEASE_TAG}*`).split('\n').filter(Boolean);
  } catch {
    return [];
  }
  const version = (tag) =>
    tag
      .slice(RELEASE_TAG.length)
      .split(/[.-]/)
      .map((part) => Number(part) || 0);
  return tags.sort((a, b) => {
    const [x, y] = [version(a), version(b)];
    for (let i = 0; i < Math.max(x.length, y.length); i++)
      if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
    return 0;
  });
}

/** The last release, else the merge base with main (origin's when there is one). */
function defaultBase() {
  const tags = releaseTags();
  if (tags.length > 0) return { ref: tags.at(-1), label: `release ${tags.at(-1)}` };
  for (const main of ['origin/main', 'main']) {
    try {
      const ref = git('merge-base', 'HEAD', main);
      return { ref, label: `the merge base with ${main} (${ref.slice(0, 10)}), no release tag yet` };
    } catch {
      // try the next
    }
  }
  return undefined;
}

/** A git ref's redocly.yaml and spec sources, extracted into a scratch directory. */
function checkout(ref, scratch) {
  const dir = join(scratch, `tree-${ref.replace(/[^\w.-]+/g, '_')}`);
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', ref, 'redocly.yaml', 'spec'], {
    cwd: repoRoot,
    maxBuffer: 1 << 28,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return dir;
}

/** Bundles one API of a tree (a repository root or a copy of it) into a JSON file. */
async function bundle(tree, api, scratch, label) {
  const output = join(scratch, `${label}-${api.name}.json`);
  const config = join(tree, 'redocly.yaml');
  if (!parseYaml(readFileSync(config, 'utf8')).apis?.[api.alias]) return undefined; // the API did not exist yet
  const run = await runTool(bin('redocly'), ['bundle', api.alias, '--config', config, '--output', output], {
    cwd: tree,
  });
  if (run.status !== 0)
    throw new Error(`redocly bundle ${api.alias} failed (${run.status ?? run.signal}):\n${run.stderr}`);
  // Examples and code samples are documentation, not contract, and they triple Optic's time.
  const withoutExamples = JSON.stringify(JSON.parse(readFileSync(output, 'utf8')), (key, value) =>
    key === 'examples' || key === 'example' || key === 'x-codeSamples' ? undefined : value,
  );
  writeFileSync(output, withoutExamples);
  return output;
}

/**
 * Optic's verdict and list of changes, from one run: each operation it reports (`✔`/`x METHOD /path:` and
 * `added`, `removed` or nothing for changed) with the changes listed below it, and which fail a
 * breaking-change rule (`x`).
 */
async function compare(before, after) {
  const env = { ...process.env, OPTIC_TELEMETRY_LEVEL: 'off' };
  // Loose validation: Optic's strict mode refuses boolean schemas, which OpenAPI 3.1 allows.
  const args = [
    'diff',
    resolve(before),
    resolve(after),
    '--check',
    '--validation',
    'loose',
    '--severity',
    'error',
  ];
  // Under CI=true Optic writes ci-run-details.json into its working folder: the base's temp folder, not ours.
  const run = await runTool(bin('optic'), args, { cwd: dirname(resolve(before)), env });
  if (run.status !== 0 && run.status !== 1) {
    throw new Error(`optic diff failed (${run.status ?? run.signal}):\n${run.stderr}${run.stdout}`);
  }
  const header = new RegExp(`^(✔|x) (${METHODS}) (\\S+):\\s*(added|removed)?\\s*$`);
  const operations = [];
  for (const line of run.stdout.split('\n')) {
    const match = header.exec(line);
    if (match) {
      const [, verdict, method, path, change] = match;
      operations.push({
        name: `${method} ${path}`,
        change: change ?? 'changed',
        breaking: verdict === 'x',
        details: 0,
      });
    } else if (/^\s+- /.test(line) && operations.length > 0) {
      operations.at(-1).details++;
    }
  }
  const breaking = operations.filter((operation) => operation.breaking).map((operation) => operation.name);
  return { breaking, report: run.stdout, operations };
}

function infoVersion(file) {
  return JSON.parse(readFileSync(file, 'utf8')).info?.version ?? '0.0.0';
}
const major = (version) => Number(version.split('.')[0]) || 0;

/** `{ [api name]: [{ operation, reason }] }` from acknowledged-breaking-changes.yaml of the head tree. */
function acknowledgements(tree) {
  const file = join(tree, 'spec', 'acknowledged-breaking-changes.yaml');
  return existsSync(file) ? (parseYaml(readFileSync(file, 'utf8')) ?? {}) : {};
}

/** One API's changes between two trees (undefined base: the API is new). */
async function apiChanges(api, baseTree, headTree, scratch) {
  const head = await bundle(headTree, api, scratch, 'head');
  const base = baseTree && (await bundle(baseTree, api, scratch, 'base'));
  if (!base) return { api, base, head, breaking: [], operations: [], report: '', isNew: true };
  return { api, base, head, ...(await compare(base, head)) };
}

function changelogSection(title, changes) {
  const lines = [`## ${title}`, ''];
  for (const change of changes) {
    lines.push(`### ${change.api.title} ${infoVersion(change.head)}`, '');
    if (change.isNew) {
      lines.push('First description of this API.', '');
      continue;
    }
    if (change.operations.length === 0) {
      lines.push('No change to operations.', '');
      continue;
    }
    const acknowledged = new Map((change.acknowledged ?? []).map((item) => [item.operation, item.reason]));
    for (const [verb, kind] of [
      ['Added', 'added'],
      ['Changed', 'changed'],
      ['Removed', 'removed'],
    ]) {
      const operations = change.operations.filter((operation) => operation.change === kind);
      if (operations.length === 0) continue;
      lines.push(`**${verb}**`, '');
      for (const operation of operations) {
        const reason = acknowledged.get(operation.name);
        const { details } = operation;
        lines.push(
          `- \`${operation.name}\`${kind === 'changed' ? ` (${details} change${details === 1 ? '' : 's'})` : ''}` +
            (operation.breaking ? ` — **breaking**${reason ? `: ${reason}` : ''}` : ''),
        );
      }
      lines.push('');
    }
  }
  return lines.join('\n');
}

// The scratch folder (two checkouts and bundles, a few MB) goes however the run ends: a signal (Ctrl-C
// during a build) exits through process.exit, which runs the 'exit' listener. A run killed outright
// (SIGKILL) leaves its folder behind: the next run removes those whose pid is gone.
const scratchPrefix = 'api-changes-';
for (const entry of readdirSync(tmpdir())) {
  const pid = /^(\d+)-/.exec(entry.startsWith(scratchPrefix) ? entry.slice(scratchPrefix.length) : '')?.[1];
  if (!pid) continue;
  try {
    process.kill(Number(pid), 0);
  } catch (error) {
    if (error.code === 'ESRCH') rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}
const scratch = mkdtempSync(join(tmpdir(), `${scratchPrefix}${process.pid}-`));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
for (const signal of INTERRUPTS) process.on(signal, () => exitIfInterrupted(signal));
try {
  const headTree = options['head-dir'] ? resolve(options['head-dir']) : repoRoot;
  let baseTree;
  let baseLabel;
  if (options['base-dir']) {
    baseTree = resolve(options['base-dir']);
    baseLabel = options['base-dir'];
  } else {
    const base = options.base ? { ref: options.base, label: options.base } : defaultBase();
    if (base) {
      baseTree = checkout(base.ref, scratch);
      baseLabel = base.label;
    }
  }
  const acknowledged = acknowledgements(headTree);
  const unreleased = [];
  for (const api of apis) {
    const change = await apiChanges(api, baseTree, headTree, scratch);
    unreleased.push({ ...change, acknowledged: acknowledged[api.name] ?? [] });
  }

  let failed = false;
  console.log(`API changes compared with ${baseLabel ?? 'nothing (no release tag and no main branch)'}:`);
  for (const change of unreleased) {
    if (change.isNew) {
      console.log(`  ${change.api.name}: new API`);
      continue;
    }
    const [before, after] = [infoVersion(change.base), infoVersion(change.head)];
    const bumped = major(after) > major(before);
    const ackedOperations = new Set(change.acknowledged.map((item) => item.operation));
    const unacknowledged = change.breaking.filter((operation) => !ackedOperations.has(operation));
    const summary = `${change.operations.length} operation(s) changed, ${change.breaking.length} with a breaking change`;
    console.log(`  ${change.api.name} ${before} → ${after}: ${summary}`);
    if (unacknowledged.length > 0 && !bumped) {
      failed = true;
      console.log(change.report);
      console.log(
        `  ✗ breaking change in ${unacknowledged.join(', ')}: release it as ${major(before) + 1}.0.0 (info.version) ` +
          `or acknowledge it in spec/acknowledged-breaking-changes.yaml under ${change.api.name}, with the reason clients are not broken`,
      );
    }
  }

  if (options.changelog) {
    const sections = [changelogSection(`Unreleased (compared with ${baseLabel ?? 'nothing'})`, unreleased)];
    // Each release against the one before it, newest first.
    const tags = releaseTags();
    for (let i = tags.length - 1; i >= 0; i--) {
      const headOfRelease = checkout(tags[i], scratch);
      const before = i > 0 ? checkout(tags[i - 1], scratch) : undefined;
      const changes = [];
      for (const api of apis) changes.push(await apiChanges(api, before, headOfRelease, scratch));
      sections.push(changelogSection(tags[i].slice(RELEASE_TAG.length), changes));
    }
    const text = [
      '<!-- Generated by spec/scripts/api-changes.mjs from the API descriptions of each release; do not edit. -->',
      '# API changelog',
      '',
      'What changed in the platform API and the content site API, release by release, as Optic sees it',
      'comparing the descriptions. Breaking changes need a new major `info.version` or an acknowledgement with',
      'its reason (spec/README.md, "Versions").',
      '',
      ...sections,
    ].join('\n');
    mkdirSync(dirname(resolve(options.changelog)), { recursive: true });
    writeFileSync(resolve(options.changelog), `${text.trimEnd()}\n`);
    console.log(`changelog written to ${options.changelog}`);
  }
  if (options.check && failed) process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
