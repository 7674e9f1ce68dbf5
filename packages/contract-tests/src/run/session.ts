// What every phase of a run shares: the clients, the selected checks, and the record of what happened —
// each request counted once, each answer's status put in the status matrix, each (phase, check,
// operation) passed, failed (with a curl line) or skipped with its reason.
import type { Operation, Problem, SpecValidator } from '@platform-api/validator';
import type { Answer, CallOptions, CallResult, ContractClient, SentRequest } from '../client.js';
import {
  CHECKS,
  type CheckName,
  type Evidence,
  exchange,
  type PhaseName,
  RESPONSE_CHECKS,
} from './checks.js';
import { redact, redactRequest, toCurl } from './curl.js';

export interface Failure {
  phase: PhaseName;
  check: CheckName;
  operationId: string;
  message: string;
  /** The (minimal, for generated requests) request that showed it, and as a curl line. */
  request: SentRequest;
  /** The request with the run's secrets as `${TOKEN}`-style placeholders: what a report file keeps. */
  redacted: SentRequest;
  curl: string;
  status: number | undefined;
  /** The start of the answer's body. */
  excerpt: string;
}

/**
 * The fuzz phase's generated requests per operation and direction. Sized for targets with a rate limit: a
 * default run against the reference server (1,200 requests a minute) sends about 3,750 (the README, "How
 * long a run takes").
 */
export const DEFAULT_MAX_EXAMPLES = 35;

export interface CaseResult {
  phase: PhaseName;
  check: CheckName;
  operationId: string;
  outcome: 'passed' | 'failed' | 'skipped';
  /** How many times the check held or failed for this operation in this phase. */
  runs: number;
  failures: Failure[];
  reason?: string;
}

export interface StatusRow {
  operationId: string;
  method: string;
  path: string;
  /** The statuses the spec documents (`200`, `4XX`, `default`). */
  documented: string[];
  /** Status → how many answers had it. */
  seen: Record<string, number>;
}

export interface RunReport {
  api: string;
  target: string;
  seed: number;
  startedAt: string;
  durationMs: number;
  phases: Array<{ name: PhaseName; requests: number; durationMs: number }>;
  requests: number;
  /** A failure that stopped the run (no token, server down, throttled past the budget). */
  fatal?: string;
  /** How the target's rate limit held the run up: 429 answers waited out, and all the time waited. */
  throttling: { throttled: number; waitedMs: number };
  results: CaseResult[];
  matrix: StatusRow[];
  /** Set when the run was compared with an earlier report (`--baseline`; run/baseline.ts). */
  baseline?: BaselineOutcome;
}

export interface BaselineOutcome {
  file: string;
  /** Failures the baseline already had: not counted (their results are marked skipped). */
  known: Failure[];
  /** Baseline failures whose check ran on their operation in this run without them. */
  fixed: Array<Pick<Failure, 'check' | 'operationId' | 'message'> & { id: string }>;
}

export interface SessionOptions {
  api: string;
  validator: SpecValidator;
  client: ContractClient;
  /** A client of another tenant, for tenant_isolation. */
  otherTenant?: ContractClient;
  /** The operations in scope (default: every path operation). */
  include?: (operation: Operation) => boolean;
  checks: ReadonlySet<CheckName>;
  /** Checks not run on one operation each (`check:operationId`), for what its spec cannot express. */
  exemptions?: ReadonlySet<string>;
  seed: number;
  maxExamples: number;
  /** A suffix unique to this run, for the names of what it creates. */
  runId: string;
  /** Whether generated strings may contain U+0000. */
  allowNul: boolean;
  /** The max_response_time budget (default: not checked). */
  maxResponseTimeMs?: number;
  /** Progress lines of the run (default: none). */
  log?: (line: string) => void;
  /** The run's OAuth scopes and tokens with fewer of them, for scope_enforcement (default: not checked). */
  scopes?: RunScopes;
}

/** The OAuth scopes a run's token holds, and how to get a token of the same client with fewer. */
export interface RunScopes {
  granted: readonly string[];
  /** A client of the run's own tenant whose token was asked for `scopes` only; throws when none is issued. */
  clientFor(scopes: readonly string[]): Promise<ContractClient>;
}

const EXCERPT = 400;
const MAX_FAILURES_KEPT = 5;

export class Session {
  readonly validator: SpecValidator;
  readonly client: ContractClient;
  readonly otherTenant: ContractClient | undefined;
  readonly operations: Operation[];
  readonly checks: ReadonlySet<CheckName>;
  readonly exemptions: ReadonlySet<string>;
  readonly seed: number;
  readonly maxExamples: number;
  readonly runId: string;
  readonly api: string;
  readonly text: { allowNul: boolean };
  readonly maxResponseTimeMs: number | undefined;
  readonly scopes: RunScopes | undefined;
  /** Progress lines of the run, for phases that have more to say than their request count. */
  readonly log: (line: string) => void;
  phase: PhaseName = 'examples';
  /** While set, failures are not recorded (fast-check exploring and shrinking); passes still count. */
  quiet = false;
  requests = 0;
  private readonly results = new Map<string, CaseResult>();
  private readonly matrix = new Map<string, StatusRow>();

  constructor(options: SessionOptions) {
    this.api = options.api;
    this.validator = options.validator;
    this.client = options.client;
    this.otherTenant = options.otherTenant;
    this.checks = options.checks;
    this.exemptions = options.exemptions ?? new Set();
    this.seed = options.seed;
    this.maxExamples = options.maxExamples;
    this.runId = options.runId;
    this.text = { allowNul: options.allowNul };
    this.maxResponseTimeMs = options.maxResponseTimeMs;
    this.scopes = options.scopes;
    this.log = options.log ?? (() => {});
    const include = options.include ?? (() => true);
    this.operations = options.validator.operations.filter(
      (operation) => operation.kind === 'path' && include(operation),
    );
    for (const operation of this.operations) this.rowOf(operation);
  }

  private uniques = 0;

  /** A tag unique to this run and call, for the names and e-mail addresses of what it creates. */
  uniqueTag(): string {
    this.uniques += 1;
    return `${this.runId}${this.uniques.toString(36)}`;
  }

  /**
   * A request as the target would read it, with this run's tags masked: equal for two requests that
   * differ only in their fresh values, which test the same thing.
   */
  sameRequestKey(request: CallOptions): string {
    const text = JSON.stringify(request, (_, value) =>
      value instanceof Uint8Array ? `bytes:${Buffer.from(value).toString('latin1')}` : value,
    );
    // Each tag is the run id and a base-36 count (uniqueTag).
    const [head, ...tagged] = text.split(this.runId);
    return [head, ...tagged.map((rest) => rest.replace(/^[0-9a-z]+/, ''))].join('<tag>');
  }

  /** Whether the run checks `check` (on `operationId`, when given). */
  enabled(check: CheckName, operationId?: string): boolean {
    return this.checks.has(check) && !this.exemptions.has(`${check}:${operationId}`);
  }

  /** Calls an operation (as `client`, default the run's), counting it and noting its status. */
  async call(
    operation: Operation,
    options: CallOptions,
    client: ContractClient = this.client,
  ): Promise<CallResult> {
    const result = await client.call(operation.operationId, options);
    this.noteAnswer(operation, result.status);
    this.timeAnswer(operation, result.request, result, client);
    return result;
  }

  /** Sends a request outside the spec's shape (transport checks), counting it. */
  async send(
    operation: Operation,
    request: SentRequest,
    client: ContractClient = this.client,
  ): Promise<Answer> {
    const answer = await client.send(request);
    this.requests += 1;
    this.timeAnswer(operation, request, answer, client);
    return answer;
  }

  /** max_response_time: every answer of an operation within the budget. */
  private timeAnswer(
    operation: Operation,
    request: SentRequest,
    answer: Answer,
    client: ContractClient,
  ): void {
    const budget = this.maxResponseTimeMs;
    if (budget === undefined || answer.elapsedMs === undefined) return;
    if (answer.elapsedMs <= budget) {
      this.pass('max_response_time', operation);
      return;
    }
    this.fail(
      'max_response_time',
      operation,
      `answered in ${Math.round(answer.elapsedMs)} ms; the budget is ${budget} ms`,
      { request, answer },
      client,
    );
  }

  /**
   * Sends a request to a route outside the spec (the site's users and menus, which scenarios create and
   * delete around what they check), counting it.
   */
  async sendUndocumented(request: SentRequest, client: ContractClient = this.client): Promise<Answer> {
    const answer = await client.send(request);
    this.requests += 1;
    return answer;
  }

  private noteAnswer(operation: Operation, status: number): void {
    this.requests += 1;
    // An operation outside the run's scope that a phase calls all the same (the site scenarios write
    // where generated requests only read) gets its row when it first answers.
    const row = this.rowOf(operation);
    row.seen[String(status)] = (row.seen[String(status)] ?? 0) + 1;
  }

  /** The operation's row of the status matrix, made when first asked for. */
  private rowOf(operation: Operation): StatusRow {
    let row = this.matrix.get(operation.operationId);
    if (!row) {
      row = {
        operationId: operation.operationId,
        method: operation.method.toUpperCase(),
        path: operation.path,
        documented: Object.keys(operation.responses),
        seen: {},
      };
      this.matrix.set(operation.operationId, row);
    }
    return row;
  }

  /** The response-check problems of an answer that the run checks. */
  responseProblems(result: CallResult): Problem[] {
    return result.problems.filter((problem) => this.enabled(problem.check, result.operation.operationId));
  }

  pass(check: CheckName, operation: Pick<Operation, 'operationId'>): void {
    if (this.enabled(check, operation.operationId)) this.entry(check, operation.operationId).runs += 1;
  }

  fail(
    check: CheckName,
    operation: Pick<Operation, 'operationId'>,
    message: string,
    exchange: { request: SentRequest; answer?: Answer },
    client: ContractClient = this.client,
  ): void {
    // What fast-check explores is judged quietly (only its shrunk request is recorded), but the time an
    // answer took is not shrunk: a slow answer counts whenever it comes.
    if (!this.enabled(check, operation.operationId) || (this.quiet && check !== 'max_response_time')) return;
    const entry = this.entry(check, operation.operationId);
    entry.runs += 1;
    entry.outcome = 'failed';
    // One failure per distinct message is enough to act on, and a few messages per operation; the
    // rest only count.
    if (entry.failures.length >= MAX_FAILURES_KEPT) return;
    const secrets = { ...this.client.secrets(), ...this.otherSecrets(client) };
    // A token endpoint's answer holds a live token the run's own secrets do not name.
    const scrub = (text: string) =>
      redact(text, secrets).replace(/("(?:access|refresh|id)_token"\s*:\s*")[^"]*"/g, '$1…"');
    if (entry.failures.some((failure) => failure.message === scrub(message))) return;
    entry.failures.push({
      phase: this.phase,
      check,
      operationId: operation.operationId,
      message: scrub(message),
      request: exchange.request,
      redacted: redactRequest(exchange.request, secrets),
      curl: toCurl(exchange.request, secrets),
      status: exchange.answer?.status,
      excerpt: scrub(exchange.answer?.text.slice(0, EXCERPT) ?? ''),
    });
  }

  /** Records the response checks of a call; returns whether they all held. */
  checkResponse(result: CallResult, client: ContractClient = this.client): boolean {
    const evidence = { operation: result.operation, request: result.request, answer: result };
    let held = true;
    for (const check of RESPONSE_CHECKS) held = this.judge(check, evidence, { client }) && held;
    return held;
  }

  /**
   * Sends a check's probe (and its reference request, for a check that compares two answers), counting
   * them: the exchange that check judges.
   */
  async exchange(
    check: CheckName,
    operation: Operation,
    request: SentRequest,
    client: ContractClient = this.client,
  ): Promise<Omit<Evidence, 'validator'>> {
    const sent = await exchange(CHECKS[check], request, (outgoing) => this.send(operation, outgoing, client));
    return { operation, ...sent, otherTenant: client !== this.client };
  }

  /**
   * Judges an exchange by a check's rule and records the verdict; returns whether the check held.
   * `context`: what the run knows about why the request was sent, added to a failure's message.
   */
  judge(
    check: CheckName,
    evidence: Omit<Evidence, 'validator'>,
    { context, client = this.client }: { context?: string; client?: ContractClient } = {},
  ): boolean {
    const { judge } = CHECKS[check];
    if (!judge || !this.enabled(check, evidence.operation.operationId)) return true;
    const problems = judge({ validator: this.validator, ...evidence });
    for (const problem of problems) {
      this.fail(
        check,
        evidence.operation,
        context ? `${problem} (${context})` : problem,
        { request: evidence.request, answer: evidence.answer },
        client,
      );
    }
    if (problems.length === 0) this.pass(check, evidence.operation);
    return problems.length === 0;
  }

  /** Whether a check has failed anywhere in this run so far. */
  failedAny(check: CheckName): boolean {
    return [...this.results.values()].some((result) => result.check === check && result.outcome === 'failed');
  }

  skip(check: CheckName, operationId: string, reason: string): void {
    if (!this.enabled(check, operationId)) return;
    const entry = this.entry(check, operationId);
    if (entry.runs === 0) {
      entry.outcome = 'skipped';
      entry.reason = reason;
    }
  }

  report(
    base: Omit<RunReport, 'results' | 'matrix' | 'requests' | 'api' | 'seed' | 'throttling'>,
  ): RunReport {
    const throttles = new Set(
      [this.client.throttle, this.otherTenant?.throttle].filter((t) => t !== undefined),
    );
    return {
      ...base,
      api: this.api,
      seed: this.seed,
      requests: this.requests,
      throttling: {
        throttled: [...throttles].reduce((sum, throttle) => sum + throttle.throttled, 0),
        waitedMs: [...throttles].reduce((sum, throttle) => sum + throttle.waitedMs, 0),
      },
      results: [...this.results.values()],
      matrix: [...this.matrix.values()],
    };
  }

  /** Clients of the run's own tenant with fewer scopes: their token is the run's `${TOKEN}` (replay --scopes). */
  private readonly narrowed = new WeakSet<ContractClient>();

  /** Notes a client of the run's own tenant whose token holds fewer scopes (scope_enforcement). */
  sameTenant(client: ContractClient): ContractClient {
    this.narrowed.add(client);
    return client;
  }

  private otherSecrets(client: ContractClient): Record<string, string> {
    if (client === this.client) return {};
    if (this.narrowed.has(client)) return client.secrets();
    return Object.fromEntries(
      Object.entries(client.secrets()).map(([name, value]) => [`OTHER_${name}`, value]),
    );
  }

  private entry(check: CheckName, operationId: string): CaseResult {
    const key = `${this.phase} ${check} ${operationId}`;
    let entry = this.results.get(key);
    if (!entry) {
      entry = { phase: this.phase, check, operationId, outcome: 'passed', runs: 0, failures: [] };
      this.results.set(key, entry);
    } else if (entry.outcome === 'skipped') {
      entry.outcome = 'passed';
      delete entry.reason;
    }
    return entry;
  }
}

/** Every failure of a report, in the order found. */
export function failuresOf(report: RunReport): Failure[] {
  return report.results.flatMap((result) => result.failures);
}
