import { rawExchange } from '@platform-api/test-support';
import { type Operation, resolveLocal } from '@platform-api/validator';
import { expect, it } from 'vitest';
import type { ApiResponse } from './helpers/api.js';
import { describeEachDialect } from './helpers/databases.js';
import type { TestServer } from './helpers/server.js';
import { doc, operations, schemaProblems } from './helpers/spec-validator.js';
import { unlimitedServerForSuite } from './helpers/unlimited-server.js';

/*
 * The one rule for control characters (server README, "Text in requests"; the spec's info.description):
 * - NUL and unpaired UTF-16 surrogates are refused (400) wherever an operation reads them: a body's keys and
 *   values at any depth that its schema describes, a path parameter, a query parameter it declares; a member
 *   no schema describes is ignored whatever it holds. Bytes that are not UTF-8 are refused anywhere. Each
 *   place is named in details[].field, written safely.
 * - Other control characters (U+0001–U+001F, U+007F) are text: a known field's schema decides, an unknown
 *   field is ignored whatever it holds.
 * Sent to every operation of the bundle that takes a body; every answer is checked against the spec by the
 * api helper (documented status, ApiError or OAuthError body, never a 5xx).
 */

const REFUSED = { NUL: '\u0000', 'lone high surrogate': '\ud800', 'lone low surrogate': '\udc00' };
const TEXT = { SOH: '\u0001', TAB: '\t', LF: '\n', ESC: '\u001b', US: '\u001f', DEL: '\u007f' };
const NOT_UTF8 = { 'byte FF': [0xff], 'overlong NUL': [0xc0, 0x80], 'encoded surrogate': [0xed, 0xa0, 0x80] };

/** What ApiErrorDetail.field may hold: a location, then dotted keys; no control character, no lone surrogate. */
const FIELD =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must be absent
  /^(body|query|path|header)(\.|$)(?![\s\S]*[\u0000-\u001f\u007f])(?![\s\S]*([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]))/;

/** The escaped form fieldPath writes a key's character in. */
const escaped = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

const bodyOperations = operations.filter((op) => op.requestBody);
const mediaTypes = (op: Operation) => Object.keys(op.requestBody?.content ?? {});

/** The first plain string property of the operation's JSON body schema (a known field to put text in). */
function knownStringField(op: Operation): string | undefined {
  const media = op.requestBody?.content['application/json'] as { schema?: unknown } | undefined;
  if (!media?.schema) return undefined;
  const schema = resolveLocal<{ properties?: Record<string, unknown> }>(doc as never, {
    node: media.schema,
    pointer: '',
  }).node;
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const resolved = resolveLocal<{ type?: unknown }>(doc as never, { node: property, pointer: '' }).node;
    if (resolved?.type === 'string') return name;
  }
  return undefined;
}

const fieldsOf = (res: ApiResponse): string[] =>
  ((res.body?.details ?? []) as { field: string }[]).map((detail) => detail.field);

describeEachDialect('one rule for control characters, on every body-taking operation, on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  unlimitedServerForSuite(dialect, (suite) => {
    ({ server, token } = suite);
  });

  /** The operation called with its credentials and ids that exist nowhere (the text check comes first). */
  function send(
    op: Operation,
    body: { json?: unknown; raw?: { body: string | Uint8Array; contentType: string } },
  ) {
    const path = op.path.replace(/\{[^}]+\}/g, '1');
    const security = op.security.flatMap((requirement) => Object.keys(requirement));
    const headers: Record<string, string> = security.includes('chatBotToken')
      ? { 'x-chat-bot-token': 'ab'.repeat(32) }
      : {};
    const credentials = security.includes('basicAuth')
      ? { basic: { id: server.client.clientId, secret: server.client.clientSecret } }
      : { token };
    return server.call(op.method.toUpperCase(), path, { ...credentials, headers, ...body });
  }

  const isOAuth = (op: Operation) => op.operationId === 'createAccessToken';

  it('covers every operation of the bundle that takes a body, in each of its media types', () => {
    expect(bodyOperations.length).toBeGreaterThan(15);
    const types = new Set(bodyOperations.flatMap(mediaTypes));
    expect([...types].sort()).toEqual(['application/json', 'application/x-www-form-urlencoded', 'text/csv']);
  });

  for (const op of bodyOperations) {
    it(`${op.operationId} (${op.method.toUpperCase()} ${op.path})`, async () => {
      for (const type of mediaTypes(op)) {
        if (type === 'application/json') await json(op);
        else if (type === 'application/x-www-form-urlencoded') await form(op);
        else if (type === 'text/csv') await csv(op);
        else throw new Error(`no probe for ${type}: add one`);
        await notUtf8(op, type);
      }
    });
  }

  async function json(op: Operation) {
    const known = knownStringField(op);
    const baseline = await send(op, { json: { zz: 'plain' } });
    for (const [name, character] of Object.entries(REFUSED)) {
      // Where the operation reads text, it is refused and the place named.
      if (known) {
        const res = await send(op, { json: { [known]: `a${character}b` } });
        expect(res.status, `${name} in ${known}: ${res.text}`).toBe(400);
        expect(fieldsOf(res), `${name} in ${known}`).toEqual([`body.${known}`]);
      }
      // A member no schema of the body describes is never read: the answer is the one without it.
      for (const body of [
        { zz: 'plain', [`x${character}`]: 1 },
        { zz: `a${character}b` },
        { zz: { [`k${character}`]: ['v'] } },
        { zz: [{ deep: [`v${character}`] }] },
      ]) {
        const res = await send(op, { json: body });
        expect(res.status, `${name} in an unknown field: ${res.text}`).toBe(baseline.status);
        expect(fieldsOf(res), `${name} in an unknown field`).toEqual(fieldsOf(baseline));
      }
    }
    for (const [name, character] of Object.entries(TEXT)) {
      // Unknown fields are ignored whatever they hold: the answer is the one without them.
      for (const body of [
        { zz: 'plain', [`x${character}`]: `a${character}b` },
        { zz: { [`k${character}`]: [`v${character}`] } },
      ]) {
        const res = await send(op, { json: body });
        expect(res.status, `${name} in an unknown field: ${res.text}`).toBe(baseline.status);
        expect(fieldsOf(res), `${name} in an unknown field`).toEqual(fieldsOf(baseline));
      }
      // A known field's schema decides: the only new complaint there may be is about that field.
      if (known) {
        const plain = await send(op, { json: { [known]: 'ab' } });
        const res = await send(op, { json: { [known]: `a${character}b` } });
        expect(res.status, `${name} in ${known}: ${res.text}`).toBeLessThan(500);
        const added = fieldsOf(res).filter((field) => !fieldsOf(plain).includes(field));
        expect(
          added.every((field) => field === `body.${known}`),
          `${name} in ${known}: ${res.text}`,
        ).toBe(true);
      }
    }
  }

  async function form(op: Operation) {
    const base = 'grant_type=client_credentials';
    const formBody = (extra: string) => ({
      raw: { body: `${base}&${extra}`, contentType: 'application/x-www-form-urlencoded' },
    });
    // NUL in a parameter the endpoint reads: invalid_request (OAuthError, the token endpoint's 400).
    const nul = await send(op, formBody('scope=user%00'));
    expect(nul.status, nul.text).toBe(400);
    expect(nul.body.error).toBe('invalid_request');
    // In one it does not read, ignored like the rest of it.
    for (const extra of ['x%00=1', 'zz=a%00b']) {
      const res = await send(op, formBody(extra));
      expect(res.status, `${extra}: ${res.text}`).toBe(200);
    }
    // A parameter named like a prototype, repeated, is a parameter like any other: ignored.
    const proto = await send(op, formBody('__proto__=x&__proto__=y&constructor=z'));
    expect(proto.status, proto.text).toBe(200);
    // Other control characters in a parameter the endpoint does not read: ignored.
    for (const character of Object.values(TEXT)) {
      const code = encodeURIComponent(character);
      const res = await send(op, formBody(`x${code}=a${code}b`));
      expect(res.status, `${code}: ${res.text}`).toBe(200);
    }
  }

  async function csv(op: Operation) {
    const dataset = await server.call('POST', '/v1/datasets', {
      token,
      json: { name: 'Control characters', schema: { columns: [{ type: 'STRING', name: 'text' }] } },
    });
    expect(dataset.status).toBe(201);
    const path = op.path.replace('{id}', dataset.body.id);
    const put = (text: string) =>
      server.call('PUT', path, { token, raw: { body: text, contentType: 'text/csv' } });
    const res = await put('a\u0000b\n');
    expect(res.status, res.text).toBe(400);
    expect(fieldsOf(res)).toEqual(['body']);
    // Other control characters are text: stored and read back as sent.
    const cells = Object.values(TEXT).map((character) => `a${character}b`);
    const stored = await put(cells.map((cell) => `"${cell}"\n`).join(''));
    expect(stored.status, stored.text).toBe(204);
    const read = await server.call('GET', path, { token, headers: { accept: 'text/csv' } });
    expect(read.status).toBe(200);
    for (const cell of cells) expect(read.text).toContain(cell);
    // A column name is text too; a complaint about one of its values writes it escaped.
    const typed = await server.call('POST', '/v1/datasets', {
      token,
      json: { name: 'Typed', schema: { columns: [{ type: 'LONG', name: 'n\u0001\n' }] } },
    });
    expect(typed.status, typed.text).toBe(201);
    const wrong = await server.call('PUT', op.path.replace('{id}', typed.body.id), {
      token,
      raw: { body: 'x\n', contentType: 'text/csv' },
    });
    expect(wrong.status, wrong.text).toBe(409);
    expect(fieldsOf(wrong)).toEqual(['body.row 1.n\\u0001\\u000a']);
    for (const f of fieldsOf(wrong)) expect(f).toMatch(FIELD);
  }

  async function notUtf8(op: Operation, type: string) {
    for (const [name, bytes] of Object.entries(NOT_UTF8)) {
      const text =
        type === 'application/json'
          ? [Buffer.from('{"zz":"a'), Buffer.from(bytes), Buffer.from('b"}')]
          : type === 'text/csv'
            ? [Buffer.from('a'), Buffer.from(bytes), Buffer.from('b\n')]
            : [Buffer.from('grant_type=client_credentials&zz=a'), Buffer.from(bytes), Buffer.from('b')];
      const res = await send(op, { raw: { body: Buffer.concat(text), contentType: type } });
      expect(res.status, `${name} in ${type}: ${res.text}`).toBe(400);
      if (isOAuth(op)) expect(res.body.error).toBe('invalid_request');
      else expect(res.body.message, name).toBe('Body is not valid UTF-8');
    }
  }
});

describeEachDialect('the same rule for parameters and headers, on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  unlimitedServerForSuite(dialect, (suite) => {
    ({ server, token } = suite);
  });

  it('refuses NUL in a path or declared query parameter, naming it; ignores undeclared parameters', async () => {
    const path = await server.call('GET', '/v1/chat/channels/a%00b', { token });
    expect(path.status).toBe(400);
    expect(path.body.details).toEqual([
      { field: 'path.channelId', message: 'must not contain NUL characters' },
    ]);
    const query = await server.call('GET', '/v1/datasets?nameLike=a%00b', { token });
    expect(query.status).toBe(400);
    expect(query.body.details).toEqual([
      { field: 'query.nameLike', message: 'must not contain NUL characters' },
    ]);
    for (const value of ['%00', '%01', '%7F', '%ED%A0%80', '%FF']) {
      const res = await server.call('GET', `/v1/datasets?zz=${value}`, { token });
      expect(res.status, value).toBe(200);
    }
  });

  it('takes other control characters in parameters as text: the schema decides', async () => {
    const channel = await server.call('GET', '/v1/chat/channels/a%01b', { token });
    expect(channel.status).toBe(404);
    const like = await server.call('GET', '/v1/datasets?nameLike=a%01%7Fb', { token });
    expect(like.status).toBe(200);
    // Bytes that are not UTF-8 in a path: the URL cannot be read.
    const bad = await server.call('GET', '/v1/chat/channels/%ED%A0%80', { token });
    expect(bad.status).toBe(400);
  });

  it('leaves control characters in headers to the HTTP parser: 400, an ApiError, the connection closed', async () => {
    for (const character of ['\u0000', '\u0001', '\u001b', '\u007f', '\n']) {
      const answer = await rawExchange(
        server.baseUrl,
        `GET /v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nX-Chat-Bot-Token: a${character}b\r\n\r\n`,
      );
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head, escaped(character)).toMatch(/^HTTP\/1\.1 400 /);
      expect(head.toLowerCase()).toContain('connection: close');
      expect(schemaProblems('ApiError', JSON.parse(body))).toEqual([]);
    }
  });
});
