// signing_secret: a secret the spec declares made at create (`x-state: {signingSecret: {when: FIELD}}` on a
// property of the created item) is answered by the create exactly when FIELD was sent true, and never read
// back: a client stores it once, and a secret a read shows is one anybody with read access can sign with.
import { isObject, type Operation } from '@platform-api/validator';
import type { CallResult } from '../../client.js';
import type { Session } from '../session.js';
import { responseProperties, stateOf } from '../values/schemas.js';
import { sentJson } from './writes.js';

/** The item's properties holding such a secret, each with the field that asks for it. */
function declaredSecrets(session: Session, operation: Operation, status: number) {
  const properties = responseProperties(session.validator, operation, status);
  return Object.entries(properties).flatMap(([name, raw]) => {
    const rule = stateOf(session.validator, raw).signingSecret;
    return isObject(rule) && typeof rule.when === 'string' ? [{ name, when: rule.when }] : [];
  });
}

/** The create's own answer: the secret there exactly when its field was sent true. */
export function checkCreatedSecret(session: Session, created: CallResult): void {
  const { operation } = created;
  if (!session.enabled('signing_secret', operation.operationId) || !isObject(created.json)) return;
  const sent = sentJson(created);
  if (!sent) return;
  for (const { name, when } of declaredSecrets(session, operation, created.status)) {
    const asked = sent[when] === true;
    const answered = created.json[name] !== undefined;
    if (asked === answered) session.pass('signing_secret', operation);
    else
      session.fail(
        'signing_secret',
        operation,
        `${operation.operationId} with ${when} ${JSON.stringify(sent[when] ?? null)} answered ${created.status} ${answered ? 'with' : 'without'} ${name}`,
        { request: created.request, answer: created },
      );
  }
}

/** A read of what a create made: none of the create's secrets. */
export function checkReadSecret(session: Session, created: CallResult, read: CallResult): void {
  const { operation } = created;
  if (!session.enabled('signing_secret', operation.operationId) || !isObject(read.json)) return;
  if (read.status < 200 || read.status >= 300) return;
  for (const { name } of declaredSecrets(session, operation, created.status)) {
    if (read.json[name] === undefined) session.pass('signing_secret', operation);
    else
      session.fail(
        'signing_secret',
        operation,
        `${read.operation.operationId} answered ${read.status} with ${name}, which only the create may answer`,
        { request: read.request, answer: read },
      );
  }
}
