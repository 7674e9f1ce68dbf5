// The pydomo walk made by generated clients: a Python client (openapi-generator `python`) and a Go client
// (oapi-codegen) from the platform bundle, each a small program (test/walks/) that prints one
// `GENERATED_CLIENT_WALK <json>` line with its steps. Each walks every server of WALK_SERVERS (the reference
// server and the platform mock) and one judgement, walkProblems, holds for all of them.
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadBundle, namedExample, namedObjectExample, SpecValidator } from '@platform-api/contract-tests';
import { startMock } from '@platform-api/mock';
import { startReferenceServer, type WalkStep } from '@platform-api/test-support';
import { type CommandResult, runCommand, tail } from './commands.js';
import { type BundleName, type Cell, oapiCodegenModule } from './generators.js';
import type { WalkStage } from './known-failures.js';
import { packageDir } from './toolchains.js';

const require = createRequire(import.meta.url);

// The walk's inputs: the spec's own examples, as pydomo's walk uses them.
const validator = new SpecValidator(loadBundle('platform'));
const schemas = loadBundle('platform-public').components?.schemas as Record<
  string,
  { properties: Record<string, unknown> }
>;
const userProperties = schemas.User?.properties ?? {};
/** What a walk's token asks for, and what a reference server's client is given. */
const scopes = ['user', 'data'];
export function walkFixtures(generator: string): Record<string, unknown> {
  const user = namedObjectExample(validator, 'UserCreateRequest');
  return {
    scopes,
    // The reference server's walks share an instance: each creates its own user, and e-mails are unique
    // per instance.
    user: { ...user, email: `${generator}.${String(user.email)}` },
    userUpdate: namedObjectExample(validator, 'UserUpdateRequest'),
    group: namedObjectExample(validator, 'GroupCreateRequest'),
    dataset: namedObjectExample(validator, 'DatasetCreateRequest'),
    csv: String(namedExample(validator, 'DatasetCsvImport')),
  };
}
const csvExport = String(namedExample(validator, 'DatasetCsvExport'));

/** What is wrong with a walk's report: every step succeeded and gave back what the server holds. */
export function walkProblems(steps: WalkStep[], fixtures: Record<string, unknown>): string[] {
  const failed = steps.find((step) => !step.ok);
  if (failed) return [`step ${failed.name} failed: ${failed.error}\n${failed.traceback ?? ''}`];
  const value = (name: string) => steps.find((step) => step.name === name)?.value as never;
  const problems: string[] = [];
  const expectThat = (fact: boolean, what: string, got: unknown) => {
    if (!fact) problems.push(`${what}; got ${JSON.stringify(got)}`);
  };
  // Fields the request sent that a User has (UserUpdateRequest also takes roleId, which no answer carries).
  const sent = (request: unknown) =>
    Object.entries(request as Record<string, unknown>).filter(([name]) => name in userProperties);
  const user = value('createUser') as { id: number };
  const token = value('token') as { access_token?: unknown; expires_in?: unknown };
  expectThat(typeof token.access_token === 'string' && Number(token.expires_in) > 0, 'a token', token);
  for (const [step, request] of [
    ['getUser', fixtures.user],
    ['getUpdatedUser', { ...(fixtures.user as object), ...(fixtures.userUpdate as object) }],
  ] as const) {
    const got = value(step) as { model: string; fields: Record<string, unknown> };
    expectThat(got.model === 'User', `${step}: read as a User`, got.model);
    for (const [name, sentValue] of sent(request))
      expectThat(
        isDeepStrictEqual(got.fields[name], sentValue),
        `${step}: ${name} as sent`,
        got.fields[name],
      );
  }
  expectThat(
    (value('listUsers') as number[]).includes(user.id),
    'listUsers lists the user',
    value('listUsers'),
  );
  expectThat(
    isDeepStrictEqual(value('listGroupUsers'), [user.id]),
    'the group has the user',
    value('listGroupUsers'),
  );
  expectThat(
    isDeepStrictEqual(value('listGroupUsersAfterRemoval'), []),
    'the group is empty after the removal',
    value('listGroupUsersAfterRemoval'),
  );
  const deleted = value('getDeletedUser') as { model: string; fields: { id?: unknown; deleted?: unknown } };
  expectThat(
    deleted.model === 'DeletedUser' && deleted.fields.deleted === true && deleted.fields.id === user.id,
    'a deleted user is read as a DeletedUser with deleted: true',
    deleted,
  );
  expectThat(
    value('exportDatasetData') === csvExport,
    'the export is the import, with a header',
    value('exportDatasetData'),
  );
  return problems;
}

/** A server the walks walk, started: each walk gets a client of its own (`client`). */
export interface StartedWalkServer {
  baseUrl: string;
  client(walker: string): Promise<{ clientId: string; clientSecret: string }>;
  close(): Promise<void>;
}

/** The servers every walk walks, each its own stage of the matrix, judged alike. */
export const WALK_SERVERS: { stage: WalkStage; start(): Promise<StartedWalkServer> }[] = [
  {
    stage: 'walk the reference server',
    async start() {
      const server = await startReferenceServer(
        join(dirname(require.resolve('@platform-api/server')), 'cli.js'),
      );
      return {
        baseUrl: server.url,
        client: () => server.createClient('generated-clients', scopes),
        close: () => server.close(),
      };
    },
  },
  {
    stage: 'walk the platform mock',
    async start() {
      const mock = await startMock('platform', { port: 0 });
      return {
        baseUrl: mock.url,
        // The mock takes any client: the first secret a client id uses is its secret, and the id its tenant
        // (a state of its own, with the spec's examples).
        client: async (walker) => ({
          clientId: `${walker}-${randomUUID()}`,
          clientSecret: randomBytes(24).toString('base64url'),
        }),
        close: () => mock.close(),
      };
    },
  },
];

export interface WalkTarget {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** scopes, user, userUpdate, group, dataset, csv: the spec's examples (see the test). */
  fixtures: Record<string, unknown>;
}

export interface Walk {
  generator: string;
  run(cell: Cell, target: WalkTarget): Promise<CommandResult>;
}

/** `--name=value`: a value may start with `-` (a client secret is random base64url), which `--name value` would read as a flag. */
const targetArgs = (target: WalkTarget) => [
  `--base-url=${target.baseUrl}`,
  `--client-id=${target.clientId}`,
  `--client-secret=${target.clientSecret}`,
  `--fixtures=${JSON.stringify(target.fixtures)}`,
];

export const WALKS: Walk[] = [
  {
    generator: 'openapi-generator-python',
    run(cell, target) {
      const python = cell.tools.python;
      if (!python.available) throw new Error(python.reason);
      // The generated package is imported from the generator's output folder, as from a checkout of it.
      const env = { ...python.env, PYTHONPATH: cell.out };
      return runCommand(
        python.python,
        [join(packageDir, 'test/walks/python_walk.py'), ...targetArgs(target)],
        { cwd: cell.out, env, timeoutMs: 300_000 },
      );
    },
  },
  {
    generator: 'oapi-codegen',
    run(cell, target) {
      const go = cell.tools.go;
      if (!go.available) throw new Error(go.reason);
      // The walk's main package beside the generated one, in the module the compile stage built.
      cpSync(join(oapiCodegenModule, 'main.go'), join(cell.out, 'main.go'));
      return runCommand('go', ['run', '.', ...targetArgs(target)], {
        cwd: cell.out,
        env: go.env,
        timeoutMs: 600_000,
      });
    },
  },
];

/** The walk of a generator's client from a bundle, if it has one: the platform bundle's Python and Go clients. */
export function walkOf(generator: string, bundle: BundleName): Walk | undefined {
  return bundle === 'platform-portable' ? WALKS.find((walk) => walk.generator === generator) : undefined;
}

/** The steps a walk reported, or why there is no report. */
export function walkSteps(result: CommandResult): WalkStep[] {
  const line = result.output.split('\n').find((candidate) => candidate.startsWith('GENERATED_CLIENT_WALK '));
  if (!line) throw new Error(`\`${result.command}\` printed no report:\n${tail(result.output, 40)}`);
  return (JSON.parse(line.slice('GENERATED_CLIENT_WALK '.length)) as { steps: WalkStep[] }).steps;
}
