// What the site scenarios share against one target: the clients (an administrator and a subscriber),
// calls that are counted by the run's Session and asserted (status, response checks, WordPress error
// bodies), what the target cannot serve and why, and the cleanups of everything the scenarios create.
// Against the site mock with memory the calls are sent as to WordPress and what it keeps is asserted; what
// only WordPress has (users and roles, menus, revisions, media processing, theme files, oEmbed) is skipped.
// Against the stateless mock each call asks for the status it expects with `Prefer: code=N`, so the same
// steps check that the spec documents that response and that its examples fit its schemas.
import assert from 'node:assert/strict';
import type { Operation, SpecValidator } from '@platform-api/validator';
import {
  type Answer,
  type CallOptions,
  type CallResult,
  ContractClient,
  type Credentials,
  type SentRequest,
} from '../../client.js';
import { exampleRequest } from '../../examples.js';
import type { Session } from '../../run/session.js';
import { olderThan, wpNoRoute, wpSince } from '../../versions.js';
import { pngImage } from './png.js';

// Response bodies are already checked against their schemas by the validator; scenarios only read them.
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Json = Record<string, any>;

/** An id no site has. */
export const MISSING_ID = 987654321;

/**
 * What answers the scenarios:
 * - `wordpress`: a real site; state persists, error codes and capabilities mean something;
 * - `mock`: the site mock with memory (`Server: platform-api-mock (memory)`): what it is sent persists and
 *   credentials decide the tenant, but it has no users or roles, menus, revisions, media processing,
 *   theme files or oEmbed, and its error bodies are the spec's examples;
 * - `stateless-mock`: the mock started with `--stateless` (Prism's examples, any credential), asked for
 *   the status each call expects with `Prefer: code=N`.
 */
export type ScenarioTargetKind = 'wordpress' | 'mock' | 'stateless-mock';

export interface ScenarioTarget {
  /** `WordPress 7.1.4`, or `the site mock`: how summaries call it. */
  name: string;
  kind: ScenarioTargetKind;
  /** The spec's server URL (`…/wp-json`). */
  baseUrl: string;
  /** An administrator's application password (Basic). */
  credentials: Credentials & { basic: { username: string; password: string } };
  /** The WordPress version, when known (decides what `x-wp-since` operations it can serve). */
  version: string | undefined;
  /** The end of the server's own log, for failures that are not HTTP answers (a crashed mock). */
  logTail?: () => string;
}

/** The request (and answer) a scenario failure is shown with. */
export interface Exchange {
  request: SentRequest;
  answer?: Answer;
}

export class SiteHarness {
  readonly client: ContractClient;
  /** A logged-in user without rights to content (a subscriber): what WordPress answers 403. */
  subscriber: ContractClient;
  /** Statuses each operation answered. */
  readonly produced = new Map<string, Set<number>>();
  /** Operations called at least once. */
  readonly called = new Set<string>();
  /** Operations the target cannot serve, with the reason (reported as skipped, never as covered). */
  readonly notServed = new Map<string, string>();
  /** Assertions that do not apply to this target, with the reason (reported). */
  readonly notApplicable: string[] = [];
  readonly cleanups: Array<{ label: string; run: () => Promise<unknown> }> = [];
  /** A suffix unique to this run, for the names of what the scenarios create. */
  readonly runId: string;
  /**
   * What several scenarios need and none of them is about, made by the setup scenario (the stateless mock
   * serves any id): a published post (its link for oEmbed, its id to attach an image to) and, on
   * WordPress, a navigation menu for the menu items (the mock has no menus: its items name any id).
   */
  readonly fixture = { post: 1, postLink: 'http://localhost:8080/hello-world/', menu: 4 };
  /** The last request a scenario sent: the one its failure is shown with. */
  lastExchange: Exchange | undefined;

  constructor(
    readonly session: Session,
    readonly validator: SpecValidator,
    readonly target: ScenarioTarget,
  ) {
    this.client = this.clientFor(target.credentials.basic);
    // Until the setup makes a subscriber on WordPress. The stateless mock is asked for the 403; the mock
    // with memory has no roles, and what needs a subscriber is skipped there.
    this.subscriber = this.client;
    this.runId = `${session.runId}${Math.floor(Math.random() * 1e4)}`;
  }

  /** A real WordPress. */
  get wordpress(): boolean {
    return this.target.kind === 'wordpress';
  }

  /** A target that keeps what it is sent (WordPress, the mock with memory): what was written can be read. */
  get stateful(): boolean {
    return this.target.kind !== 'stateless-mock';
  }

  /** The site mock with memory: what it keeps is read back where WordPress's answers are trusted. */
  get mock(): boolean {
    return this.target.kind === 'mock';
  }

  /**
   * Whether to take a step of a scenario that only WordPress answers for real (a capability, a rendering):
   * not on the mock with memory, where it is noted in the summary with `reason`. The stateless mock is
   * asked for the documented status, as for every step.
   */
  wordPressStep(what: string, reason: string): boolean {
    if (!this.mock) return true;
    this.notApplicable.push(`${what}: ${reason}`);
    return false;
  }

  /**
   * For a scenario's `notApplicable`: skipped on the mock with memory, with why it needs WordPress (the
   * stateless mock still answers each step with the documented status asked for).
   */
  needsWordPress(reason: string): () => string | undefined {
    return () => (this.target.kind === 'mock' ? `needs WordPress: ${reason}` : undefined);
  }

  /** A client of the target as another user, sharing the run's throttle. */
  clientFor(basic: { username: string; password: string }): ContractClient {
    return new ContractClient({
      validator: this.validator,
      baseUrl: this.target.baseUrl,
      credentials: { basic },
      throttle: this.session.client.throttle,
    });
  }

  /** Calls an operation expecting `status`; the stateless mock is asked for that documented response. */
  async call(
    operationId: string,
    status: number,
    options: CallOptions = {},
    using: ContractClient = this.client,
  ): Promise<CallResult> {
    const headers = { ...options.headers };
    if (this.target.kind === 'stateless-mock') headers.prefer = `code=${status}`;
    const operation = this.validator.operation(operationId);
    const request = { ...options, headers };
    let result: CallResult;
    try {
      result = await this.session.call(operation, request, using);
    } catch (error) {
      this.lastExchange = { request: await using.prepare(operation, request) };
      const log = this.target.logTail?.() ?? `(no log of ${this.target.baseUrl} on this machine)`;
      throw new Error(
        `${operationId}: no answer from ${this.target.name} (${(error as Error).message}); its log ends:\n${log}`,
        { cause: error },
      );
    }
    this.record(result);
    assert.equal(result.status, status, `${operationId} ${result.url}: ${result.text.slice(0, 400)}`);
    const problems = this.session.responseProblems(result).map((problem) => problem.message);
    assert.deepEqual(problems, [], `${operationId} ${result.url}`);
    return result;
  }

  /** Notes an answer: the operation was called and answered this status; a failure shows this request. */
  record(result: CallResult): void {
    this.lastExchange = { request: result.request, answer: result };
    this.called.add(result.operation.operationId);
    const statuses = this.produced.get(result.operation.operationId) ?? new Set<number>();
    statuses.add(result.status);
    this.produced.set(result.operation.operationId, statuses);
  }

  /**
   * Asserts a WordPress error body (code, and the code of one argument's details); the mocks answer the
   * spec's example of the status, whose code need not be this one.
   */
  expectWpError(result: CallResult, code: string, detail?: { argument: string; code: string }): void {
    if (!this.wordpress) return;
    const body = result.json as Json;
    assert.equal(body.code, code, result.text);
    assert.equal(body.data.status, result.status, result.text);
    if (detail) assert.equal(body.data.details?.[detail.argument]?.code, detail.code, result.text);
  }

  /** Why the target cannot serve an operation (newer WordPress, plugin, no route at all), or undefined. */
  unservable(operation: Operation): string | undefined {
    if (!this.wordpress) return undefined;
    if (operation.node['x-plugin'] === true)
      return 'a plugin namespace (x-plugin); core WordPress has no such plugin';
    if (wpNoRoute(operation.node)) return 'x-wp-no-route; no WordPress version registers it';
    const since = wpSince(operation.node);
    const version = this.target.version;
    if (since && version && olderThan(version, since)) {
      return `x-wp-since ${since}; WordPress ${version} registers the route but answers 404`;
    }
    return undefined;
  }

  /**
   * Why this target lacks what the spec marks `x-wp-since` (a parameter or a JSON body property of an
   * operation), or undefined when it has it.
   */
  tooOld(operationId: string, name: string): string | undefined {
    const { validator } = this;
    const operation = validator.operation(operationId);
    const marked: unknown[] = operation.parameters
      .filter((parameter) => parameter.node.name === name)
      .map((parameter) => parameter.node);
    const body = validator.resolve({ node: operation.node.requestBody ?? {}, pointer: '' }).node;
    const json = (body.content as Json | undefined)?.['application/json']?.schema;
    const visit = (node: unknown) => {
      const schema = validator.resolve({ node: node ?? {}, pointer: '' }).node;
      for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) visit(part);
      const property = (schema.properties as Json | undefined)?.[name];
      if (property) marked.push(validator.resolve({ node: property, pointer: '' }).node);
    };
    visit(json);
    assert.ok(marked.length > 0, `${operationId} documents ${name}`);
    const since = marked.map(wpSince).find(Boolean);
    const version = this.target.version;
    if (this.wordpress && since && version && olderThan(version, since))
      return `x-wp-since ${since}; WordPress ${version} lacks ${name}`;
    return undefined;
  }

  /** Notes an assertion a mock is not held to (listed in the summary); true on WordPress, where it holds. */
  notOnMock(what: string, reason: string): boolean {
    if (this.wordpress) return true;
    this.notApplicable.push(`${what}: ${reason}`);
    return false;
  }

  idOf(result: CallResult): number {
    const id = (result.json as Json).id;
    assert.equal(typeof id, 'number', `${result.operation.operationId} answered no numeric id`);
    return id;
  }

  firstId(result: CallResult, fallback: number): number {
    const list = result.json as Json[];
    assert.ok(Array.isArray(list), `${result.operation.operationId} answered no list`);
    if (this.stateful) assert.ok(list.length > 0, `${result.operation.operationId} returned no items`);
    return (list[0]?.id as number | undefined) ?? fallback;
  }

  /** Deletes (with force) what a scenario created, once every scenario has run. */
  cleanup(label: string, operationId: string, path: Record<string, string | number>): void {
    this.cleanups.push({
      label,
      run: async () => {
        const operation = this.validator.operation(operationId);
        const result = await this.session.call(operation, { path, query: { force: true } }, this.client);
        // Already gone (a scenario deleted it) is fine; anything else is reported.
        if (result.status !== 200 && result.status !== 404 && result.status !== 410) {
          throw new Error(
            `${operationId} ${JSON.stringify(path)} → ${result.status} ${result.text.slice(0, 200)}`,
          );
        }
      },
    });
  }

  /**
   * Every operation under `prefix` that requires credentials refuses an anonymous caller (401), or a
   * logged-in user without the rights (403). Requests are the spec's examples, so that WordPress's
   * argument validation (which runs before its permission checks) passes.
   */
  async refusesUnauthorised(
    who: 'anonymous' | 'subscriber',
    prefix: string,
    pathFor: (operation: Operation) => Record<string, string | number>,
  ): Promise<void> {
    const operations = this.validator.operations.filter(
      (operation) =>
        operation.kind === 'path' &&
        (operation.path === prefix || operation.path.startsWith(`${prefix}/`)) &&
        !operation.security.some((requirement) => Object.keys(requirement).length === 0) &&
        this.unservable(operation) === undefined,
    );
    assert.ok(operations.length > 0, `no operation under ${prefix} requires credentials`);
    const status = who === 'anonymous' ? 401 : 403;
    for (const operation of operations) {
      const example = exampleRequest(this.validator, operation);
      const request: CallOptions = { ...example, path: { ...example.path, ...pathFor(operation) } };
      if (request.contentType?.includes('*')) {
        request.contentType = 'image/png';
        request.body = pngImage();
        request.headers = { ...request.headers, 'content-disposition': 'attachment; filename=refused.png' };
      }
      const refused =
        who === 'anonymous'
          ? await this.call(operation.operationId, status, { ...request, authenticate: false })
          : await this.call(operation.operationId, status, request, this.subscriber);
      if (this.wordpress) assert.equal((refused.json as Json).data.status, status, refused.text);
    }
  }
}

/** Why what needs a user without rights is skipped on the mock with memory. */
export const NO_ROLES =
  'a logged-in user without the rights (the mock has no roles: another user is another tenant, not a subscriber)';

/** Asserts that `list` holds every one of `wanted` (in any order, among others). */
export function assertIncludesAll(list: unknown, wanted: readonly unknown[], message: string): void {
  assert.ok(Array.isArray(list), `${message}: not a list: ${JSON.stringify(list)}`);
  const missing = wanted.filter((item) => !list.includes(item));
  assert.deepEqual(missing, [], `${message}: ${JSON.stringify(list)} lacks ${JSON.stringify(missing)}`);
}
