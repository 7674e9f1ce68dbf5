// The spec's OpenAPI links as requests: after a call, each link of the documented response its status falls
// under, with its parameters evaluated (runtime expressions such as `$response.body#/id`), and the request
// that follows it (the link's parameters, everything else the target needs generated and valid).
import { getByPointer, isObject, type Operation } from '@platform-api/validator';
import type { CallOptions, CallResult } from '../client.js';
import { exampleRequest } from '../examples.js';
import { uniqueValue } from './phases/examples.js';
import { baseRequest, positiveRequests } from './requests.js';
import type { Session } from './session.js';
import { requestBodySchema, sampleOne } from './values/index.js';

export interface Link {
  name: string;
  target: Operation;
  parameters: Record<string, unknown>;
}

/** The operations links start from: those that create something without naming anything on their path. */
export function creationRoots(session: Session): Operation[] {
  return session.operations.filter(
    (operation) =>
      !operation.parameters.some((parameter) => parameter.node.in === 'path') &&
      Object.values(operation.responses).some((response) => isObject(response.links)),
  );
}

/** The links of the documented response a result's status falls under, their parameters evaluated. */
export function linksOf(session: Session, source: CallResult): Link[] {
  const response =
    source.operation.responses[String(source.status)] ??
    source.operation.responses[`${String(source.status)[0]}XX`];
  if (!response || !isObject(response.links)) return [];
  const links: Link[] = [];
  for (const [name, raw] of Object.entries(response.links)) {
    const link = session.validator.resolve({ node: raw, pointer: '' }).node;
    if (typeof link.operationId !== 'string') continue;
    const target = session.operations.find((operation) => operation.operationId === link.operationId);
    if (!target) continue;
    const parameters: Record<string, unknown> = {};
    let complete = true;
    for (const [parameter, expression] of Object.entries(isObject(link.parameters) ? link.parameters : {})) {
      const value = evaluate(expression, source);
      if (value === undefined) complete = false;
      parameters[parameter.replace(/^(path|query|header)\./, '')] = value;
    }
    if (complete) links.push({ name, target, parameters });
  }
  return links;
}

/** OpenAPI runtime expressions (`$response.body#/id`, `$request.path.id`, …); constants as they are. */
function evaluate(expression: unknown, source: CallResult): unknown {
  if (typeof expression !== 'string' || !expression.startsWith('$')) return expression;
  const [, where, rest] = /^\$(request|response)\.(.*)$/.exec(expression) ?? [];
  if (expression === '$statusCode') return source.status;
  if (where === 'response') {
    if (rest?.startsWith('body')) return getByPointer(source.json, rest.slice('body#'.length) || '');
    if (rest?.startsWith('header.')) return source.headers.get(rest.slice('header.'.length)) ?? undefined;
    return undefined;
  }
  if (where === 'request' && rest) {
    const url = new URL(source.request.url);
    if (rest.startsWith('path.')) return pathValue(source, url, rest.slice('path.'.length));
    if (rest.startsWith('query.')) return url.searchParams.get(rest.slice('query.'.length)) ?? undefined;
    if (rest.startsWith('header.')) return source.request.headers[rest.slice('header.'.length).toLowerCase()];
    if (rest.startsWith('body') && typeof source.request.body === 'string') {
      try {
        return getByPointer(JSON.parse(source.request.body), rest.slice('body#'.length) || '');
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function pathValue(source: CallResult, url: URL, name: string): string | undefined {
  const names = [...source.operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const pattern = new RegExp(`${source.operation.path.replace(/\{[^}]+\}/g, '([^/]+)')}$`);
  const index = names.indexOf(name);
  const value = index >= 0 ? pattern.exec(url.pathname)?.[index + 1] : undefined;
  return value === undefined ? undefined : decodeURIComponent(value);
}

/** The link's parameters, everything else the target needs generated (valid), bodies unique to the run. */
export function linkRequest(session: Session, link: Link): CallOptions {
  const generated = sampleOne(
    positiveRequests(session.validator, link.target, session.text),
    session.seed + session.requests,
  );
  const request: CallOptions = { ...generated.options };
  request.path = { ...request.path };
  request.query = { ...request.query };
  for (const [name, value] of Object.entries(link.parameters)) {
    const parameter = link.target.parameters.find((candidate) => candidate.node.name === name);
    if (parameter?.node.in === 'query') request.query[name] = String(value);
    else request.path[name] = String(value);
  }
  const body = requestBodySchema(link.target);
  if (body && request.body !== undefined) {
    // A body whose media type JSON Schema cannot describe fully (CSV rows that match the columns) comes
    // from the spec's example; JSON bodies are generated.
    if (!body.mediaType.includes('json') && body.mediaType !== 'application/x-www-form-urlencoded') {
      try {
        const example = exampleRequest(session.validator, link.target);
        request.body = example.body;
        request.contentType = example.contentType;
      } catch {
        // No example: keep the generated body.
      }
    } else if (isObject(request.body)) {
      request.body = uniqueValue(session.validator, body.schema, request.body, session.uniqueTag());
    }
  }
  return request;
}

/** The operations a response of `operation` links to (2xx responses), by id. */
function linkedIds(session: Session, operation: Operation): Set<string> {
  const ids = new Set<string>();
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!status.startsWith('2') || !isObject(response.links)) continue;
    for (const raw of Object.values(response.links)) {
      const link = session.validator.resolve({ node: raw, pointer: '' }).node;
      if (typeof link.operationId === 'string') ids.add(link.operationId);
    }
  }
  return ids;
}

/**
 * Resources the run makes so that a probe of an operation that names one (`/v1/users/{id}`) reaches it,
 * not a 404 for an example id no real server has: the creation the spec links to the operation (through
 * one sub-resource creation at most) is made once per run, and the operation addressed by its link.
 */
export class CreatedResources {
  private readonly calls = new Map<string, Promise<CallResult | undefined>>();

  constructor(private readonly session: Session) {}

  /** A request of `target` addressing a resource the run made, when the spec's links lead there. */
  async requestFor(target: Operation): Promise<CallOptions | undefined> {
    const { session } = this;
    for (const root of creationRoots(session)) {
      const linked = linkedIds(session, root);
      const via = linked.has(target.operationId)
        ? undefined
        : session.operations.find(
            (middle) =>
              linked.has(middle.operationId) &&
              ['post', 'put'].includes(middle.method) &&
              linkedIds(session, middle).has(target.operationId),
          );
      if (!via && !linked.has(target.operationId)) continue;
      // A delete's probes may delete what they address: it gets a resource of its own, the last creation
      // of the chain made afresh.
      const own = target.method === 'delete';
      let source = await this.made(root, () => this.create(root), own && !via);
      const created = source;
      if (created && via) source = await this.made(via, () => this.follow(created, via), own);
      const link = source && linksOf(session, source).find((item) => item.target === target);
      if (link) return linkRequest(session, link);
    }
    return undefined;
  }

  private made(operation: Operation, make: () => Promise<CallResult | undefined>, afresh: boolean) {
    if (afresh) return make();
    let call = this.calls.get(operation.operationId);
    if (!call) {
      call = make();
      this.calls.set(operation.operationId, call);
    }
    return call;
  }

  private async create(root: Operation): Promise<CallResult | undefined> {
    const { session } = this;
    const request = baseRequest(session.validator, root, session.seed, session.text);
    const body = requestBodySchema(root);
    if (body && isObject(request.body))
      request.body = uniqueValue(session.validator, body.schema, request.body, session.uniqueTag());
    const result = await session.call(root, request);
    return result.status >= 200 && result.status < 300 ? result : undefined;
  }

  private async follow(source: CallResult, middle: Operation): Promise<CallResult | undefined> {
    const link = linksOf(this.session, source).find((item) => item.target === middle);
    if (!link) return undefined;
    const result = await this.session.call(middle, linkRequest(this.session, link));
    return result.status >= 200 && result.status < 300 ? result : undefined;
  }
}
