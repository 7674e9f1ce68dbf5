// contract-tests replay REPORT CASE-ID: one failure of a --report file sent again exactly as the run sent it
// (method, URL, headers, body), with the secrets the file leaves out filled in from this command's own
// credentials, and its answer judged again by the failure's check.
// Exit 0 when the failure no longer shows, 1 when it does, 2 for wrong arguments, 3 when the target
// cannot be used (no token, nothing answering).
import { type ConfigOf, option, optionsHelp, switchFlag, text } from '@platform-api/cli-options';
import { loadBundle, SpecValidator } from '@platform-api/validator';
import { type Answer, ContractClient, type SentRequest } from './client.js';
import { type CliIo, commandLine, UsageError } from './command-line.js';
import { CHECKS, type Check, type Evidence, exchange } from './run/checks.js';
import {
  casesOf,
  type ReportFile,
  ReportFileError,
  readReportFile,
  requestOf,
  type StoredFailure,
} from './run/report-file.js';
import { describeError } from './run/runner.js';
import { PLATFORM_CREDENTIALS, platformClient } from './targets/platform-target.js';
import { SITE_CREDENTIALS } from './targets/site-target.js';
import { TargetUnusable } from './targets/target.js';
import { TargetThrottled, Throttle } from './throttle.js';

/** The options of `replay`: the credentials are the targets' own, declared there. */
export const REPLAY_OPTIONS = {
  list: option({ flag: 'list', parser: switchFlag(), help: "list the report's cases" }),
  baseUrl: option({
    flag: 'base-url',
    parser: text().map((url) => url.replace(/\/+$/, '')),
    help: "a server in place of the run's",
  }),
  ...PLATFORM_CREDENTIALS,
  ...SITE_CREDENTIALS,
};

type ReplayConfig = ConfigOf<typeof REPLAY_OPTIONS>;

export const REPLAY_USAGE = `  contract-tests replay REPORT.json CASE-ID [--base-url URL]
      [--client-id ID --client-secret SECRET [--scopes "user data chat"]]
      [--other-client-id ID --other-client-secret SECRET] [--user USER --app-password PASSWORD]
  contract-tests replay --list REPORT.json
${optionsHelp(REPLAY_OPTIONS)}`;

/** How much of the answer's body is printed. */
const EXCERPT = 2000;

export async function runReplay(argv: string[], io: CliIo): Promise<number> {
  try {
    return await replay(argv, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ReportFileError) {
      io.err(`${error.message}\nUsage:\n${REPLAY_USAGE}`);
      return 2;
    }
    if (error instanceof TargetUnusable || error instanceof TargetThrottled) {
      io.out(`STOPPED: ${error.message}`);
      return 3;
    }
    throw error;
  }
}

async function replay(argv: string[], io: CliIo): Promise<number> {
  const line = commandLine(argv, REPLAY_OPTIONS);
  if (line.help) {
    io.out(`Usage:\n${REPLAY_USAGE}`);
    return 0;
  }
  const { positionals } = line;
  const values = line.read();
  if (values.list) {
    const [file, ...extra] = positionals;
    if (file === undefined || extra.length > 0) throw new UsageError('replay --list takes one report file');
    const report = readReportFile(file);
    for (const failure of casesOf(report)) io.out(describeCase(failure));
    return 0;
  }
  const [file, id, ...extra] = positionals;
  if (!file || !id)
    throw new UsageError('Name the report file and the case id (replay --list REPORT lists them)');
  if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}`);
  const report = readReportFile(file);
  const failure = casesOf(report).find((candidate) => candidate.id === id);
  if (!failure) throw new UsageError(`No case ${id} in ${file} (replay --list ${file} lists them)`);
  judgeOf(failure);

  const validator = new SpecValidator(loadBundle(report.api === 'site' ? 'site' : 'platform'));
  const baseUrl = values.baseUrl ?? report.target.replace(/\/+$/, '');
  const throttle = new Throttle();
  const secrets = await secretsFor(failure, report, values, validator, baseUrl, throttle);
  const stored = { ...failure.request, url: rebase(failure.request.url, report.target, baseUrl) };
  const request = requestOf(stored, secrets);
  const client = new ContractClient({ validator, baseUrl, throttle });
  const send = async (outgoing: SentRequest): Promise<Answer> => {
    try {
      return await client.send(outgoing);
    } catch (error) {
      if (error instanceof TargetThrottled) throw error;
      throw new TargetUnusable(`${baseUrl} does not answer (${describeError(error)})`);
    }
  };

  io.out(
    `replaying case ${id}: ${failure.check} — ${failure.operationId} (${failure.phase} phase, seed ${report.seed})`,
  );
  io.out(`  was: ${failure.status ?? 'no answer'} — ${failure.message.split('\n')[0]}`);
  io.out(`${request.method} ${stored.url}`);
  const { evidence, problems } = await replayFailure(validator, failure, request, send);
  const { answer } = evidence;
  io.out(`→ ${answer.status}`);
  for (const [name, value] of answer.headers) io.out(`  ${name}: ${value}`);
  if (answer.text) io.out(`\n${answer.text.slice(0, EXCERPT)}${answer.text.length > EXCERPT ? '…' : ''}\n`);
  if (evidence.reference)
    io.out(`compared with the check's reference request → ${evidence.reference.status}`);
  io.out(`${failure.check}: ${problems.length > 0 ? problems.join('\n') : 'the answer passes'}`);
  io.out(
    problems.length > 0 ? `REPRODUCED: case ${id} still fails` : `NOT REPRODUCED: case ${id} passes now`,
  );
  return problems.length > 0 ? 1 : 0;
}

/**
 * Sends a stored failure's request (its secrets filled in) again, and the check's reference request after
 * it where the check compares two answers, and judges the answer by the check's own rule.
 */
export async function replayFailure(
  validator: SpecValidator,
  failure: StoredFailure,
  request: SentRequest,
  send: (request: SentRequest) => Promise<Answer>,
): Promise<{ evidence: Evidence; problems: string[] }> {
  const judge = judgeOf(failure);
  const operation = validator.operations.find(
    (candidate) => candidate.kind === 'path' && candidate.operationId === failure.operationId,
  );
  if (!operation) throw new UsageError(`case ${failure.id}: ${failure.operationId} is not in the spec`);
  // The run sent as the other tenant what needs the other tenant's secrets.
  const otherTenant = failure.secrets.some((name) => name.startsWith('OTHER_'));
  const evidence = {
    validator,
    operation,
    otherTenant,
    ...(await exchange(CHECKS[failure.check], request, send)),
  };
  return { evidence, problems: judge(evidence) };
}

/** The rule of the failure's check; a check judged by more than an answer (webhooks, scenarios) has none. */
function judgeOf(failure: StoredFailure): NonNullable<Check['judge']> {
  const { judge } = CHECKS[failure.check];
  if (!judge)
    throw new UsageError(
      `case ${failure.id} (${failure.check}) is not judged by an answer alone: it cannot be replayed`,
    );
  return judge;
}

function describeCase(failure: StoredFailure): string {
  const [firstLine = ''] = failure.message.split('\n');
  const message = firstLine.slice(0, 160);
  return `${failure.id.padEnd(10)} ${failure.check} — ${failure.operationId} (${failure.phase}) → ${failure.status ?? 'no answer'}: ${message}`;
}

/** The URL with the run's base replaced by this replay's (`--base-url`), or its origin when it lay elsewhere. */
function rebase(url: string, runBase: string, baseUrl: string): string {
  if (url.startsWith(runBase)) return `${baseUrl}${url.slice(runBase.length)}`;
  const rebased = new URL(url);
  const target = new URL(baseUrl);
  rebased.protocol = target.protocol;
  rebased.host = target.host;
  return rebased.toString();
}

/**
 * The values of the placeholders in the failure's request, obtained as the run obtained them: the platform's
 * bearer tokens from its token operation with --client-id/--client-secret (and --other-…), Basic credentials
 * from the same or from --user/--app-password. Only what the request needs is asked for.
 */
async function secretsFor(
  failure: StoredFailure,
  report: ReportFile,
  values: ReplayConfig,
  validator: SpecValidator,
  baseUrl: string,
  throttle: Throttle,
): Promise<Record<string, string>> {
  const needed = new Set(failure.secrets);
  const secrets: Record<string, string> = {};
  const sides = [
    {
      prefix: '',
      id: values.clientId ?? values.user,
      secret: values.clientSecret ?? values.appPassword,
    },
    { prefix: 'OTHER_', id: values.otherClientId, secret: values.otherClientSecret },
  ];
  for (const { prefix, id, secret } of sides) {
    const names = [...needed].filter((name) =>
      prefix ? name.startsWith(prefix) : !name.startsWith('OTHER_'),
    );
    if (names.length === 0) continue;
    const flags =
      report.api === 'site'
        ? '--user and --app-password'
        : prefix
          ? '--other-client-id and --other-client-secret'
          : '--client-id and --client-secret';
    if (!id || !secret)
      throw new UsageError(
        `case ${failure.id} was sent with ${names.map((n) => `\${${n}}`).join(', ')}: give ${flags}`,
      );
    const basic = { username: id, password: secret };
    const client = names.includes(`${prefix}TOKEN`)
      ? await platformClient(
          validator,
          baseUrl,
          { clientId: id, clientSecret: secret },
          values.scopes,
          throttle,
        )
      : new ContractClient({ validator, baseUrl, credentials: { basic }, throttle });
    for (const [name, value] of Object.entries(client.secrets())) secrets[`${prefix}${name}`] = value;
    const missing = names.filter((name) => secrets[name] === undefined);
    if (missing.length > 0)
      throw new UsageError(
        `replay cannot obtain ${missing.map((n) => `\${${n}}`).join(', ')} for case ${failure.id}`,
      );
  }
  return secrets;
}
