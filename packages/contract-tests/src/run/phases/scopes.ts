// scope_enforcement: every operation whose security names OAuth2 scopes refuses a token of the run's own
// client that was asked for the run's other scopes only. Probed in the transport phase with the request
// every probe of the operation starts from: on a resource the run made where the spec's links lead to one,
// so that the scope check decides rather than a 404.
import type { Operation } from '@platform-api/validator';
import type { CallOptions, ContractClient } from '../../client.js';
import type { Session } from '../session.js';

/** A run's clients by the scopes their token was asked for; a string says why none was issued. */
const narrowedClients = new WeakMap<Session, Map<string, Promise<ContractClient | string>>>();

/** The security schemes of the spec that are OAuth2. */
function oauthSchemes(session: Session): Set<string> {
  const schemes = session.validator.document.components?.securitySchemes ?? {};
  return new Set(
    Object.entries(schemes)
      .filter(([, scheme]) => session.validator.resolve({ node: scheme, pointer: '' }).node.type === 'oauth2')
      .map(([name]) => name),
  );
}

/**
 * The scopes a token for the operation is asked for without one of the operation's scopes: undefined when
 * the check does not apply (no scope named, an alternative without OAuth2), a string when it cannot be had.
 */
function narrowedScopes(session: Session, operation: Operation): string[] | string | undefined {
  const oauth = oauthSchemes(session);
  const requirements = operation.security;
  const scoped = (requirement: Record<string, string[]>) =>
    Object.entries(requirement).some(([name, scopes]) => oauth.has(name) && scopes.length > 0);
  if (requirements.length === 0 || !requirements.every(scoped)) return undefined;
  const granted = session.scopes?.granted;
  if (!granted) return 'the run was given no way to ask for a token with fewer scopes';
  const needs = (requirement: Record<string, string[]>) =>
    Object.entries(requirement).flatMap(([name, scopes]) => (oauth.has(name) ? scopes : []));
  const satisfied = (held: readonly string[]) =>
    requirements.some((requirement) => needs(requirement).every((scope) => held.includes(scope)));
  if (!satisfied(granted))
    return `the run's own token lacks what it needs (${requirements.map(needs).join(' or ')}): --scopes`;
  for (const scope of new Set(requirements.flatMap(needs))) {
    const others = granted.filter((held) => held !== scope);
    if (!satisfied(others))
      return others.length > 0 ? others : `the run holds no scope but ${scope}: no narrower token to ask for`;
  }
  return 'every scope it names can be done without';
}

async function narrowedClient(session: Session, scopes: string[]): Promise<ContractClient | string> {
  let clients = narrowedClients.get(session);
  if (!clients) {
    clients = new Map();
    narrowedClients.set(session, clients);
  }
  const key = scopes.join(' ');
  let client = clients.get(key);
  if (!client) {
    const run = session.scopes;
    client = run
      ? run.clientFor(scopes).then(
          (issued) => session.sameTenant(issued),
          (error: unknown) => `no token for "${key}": ${(error as Error).message}`,
        )
      : Promise.resolve('the run was given no way to ask for a token with fewer scopes');
    clients.set(key, client);
  }
  return client;
}

/** Probes one operation with a token without its scope, sending the operation's base request. */
export async function scopeEnforcement(
  session: Session,
  operation: Operation,
  base: CallOptions,
): Promise<void> {
  if (!session.enabled('scope_enforcement', operation.operationId)) return;
  const scopes = narrowedScopes(session, operation);
  if (scopes === undefined) return;
  const client = typeof scopes === 'string' ? scopes : await narrowedClient(session, scopes);
  if (typeof client === 'string') {
    session.skip('scope_enforcement', operation.operationId, client);
    return;
  }
  const result = await session.call(operation, base, client);
  session.checkResponse(result, client);
  session.judge(
    'scope_enforcement',
    { operation, request: result.request, answer: result },
    { context: `a token for "${(scopes as string[]).join(' ')}" only`, client },
  );
}
