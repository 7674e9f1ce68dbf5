// `--report`, `contract-tests replay` and `--baseline` from the command line, against the reference server
// behind the planted-defects proxy (test/fixture/defective-proxy.ts) and a recorder in front of it that
// notes every request it passes on: a replay must send what the run sent, and be judged as the run judged.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { casesOf, REPORT_FORMAT, type ReportFile, type StoredFailure } from '../../src/index.js';
import { type DefectiveProxy, startDefectiveProxy } from '../fixture/defective-proxy.js';
import { type ReferenceServer, startReferenceServer } from './support/reference-server.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'contract-tests.mjs');

/** The CLI in a child process; asynchronously, since the proxies it talks to run in this one. */
function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A pass-through proxy that notes each request, body and all. */
async function startRecorder(
  upstream: string,
): Promise<{ url: string; seen: Recorded[]; close: () => void }> {
  const seen: Recorded[] = [];
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = Object.fromEntries(
        Object.entries(incoming.headers).map(([name, value]) => [name, String(value)]),
      );
      seen.push({ method: incoming.method ?? '', url: incoming.url ?? '', headers, body: body.toString() });
      const outgoing = httpRequest(
        new URL(incoming.url ?? '/', upstream),
        { method: incoming.method, headers: { ...incoming.headers, host: new URL(upstream).host } },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      outgoing.on('error', (error) => response.writeHead(502).end(String(error)));
      outgoing.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

describe('contract-tests --report, replay and --baseline', () => {
  let server: ReferenceServer;
  let planted: DefectiveProxy;
  let morePlanted: DefectiveProxy;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  let credentials: { clientId: string; clientSecret: string };
  const dir = mkdtempSync(join(tmpdir(), 'contract-replay-'));
  const first = join(dir, 'first.json');
  let report: ReportFile;
  const login = () => ['--client-id', credentials.clientId, '--client-secret', credentials.clientSecret];
  const runAgainst = (url: string, seed: string, ...more: string[]) =>
    cli(
      'platform',
      '--base-url',
      url,
      ...login(),
      '--phases',
      'examples,coverage',
      '--max-examples',
      '5',
      '--seed',
      seed,
      ...more,
    );
  const find = (check: string, operationId: string): StoredFailure => {
    const found = casesOf(report).find((c) => c.check === check && c.operationId === operationId);
    if (!found) throw new Error(`no ${check} failure on ${operationId} in ${first}`);
    return found;
  };

  beforeAll(async () => {
    server = await startReferenceServer('sqlite', { PLATFORM_RATE_LIMIT: '0' });
    credentials = await server.createClient('replay-cli', ['user', 'data', 'chat']);
    planted = await startDefectiveProxy(server.url, ['schema_violation', 'undocumented_status']);
    morePlanted = await startDefectiveProxy(server.url, [
      'schema_violation',
      'undocumented_status',
      'server_error_on_boundary',
    ]);
    recorder = await startRecorder(planted.url);
    const result = await runAgainst(
      recorder.url,
      '7',
      '--report',
      first,
      '--junit',
      join(dir, 'first.xml'),
      '--html',
      join(dir, 'first.html'),
    );
    expect(result.status, result.stdout.slice(-3000) + result.stderr).toBe(1);
    report = JSON.parse(readFileSync(first, 'utf8')) as ReportFile;
  }, 180_000);

  afterAll(async () => {
    recorder?.close();
    await planted?.close();
    await morePlanted?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes every failure with its case id, shown in the summary, JUnit and HTML too', () => {
    expect(report.format).toBe(REPORT_FORMAT);
    const schema = find('response_schema_conformance', 'getUser');
    const status = find('status_code_conformance', 'createGroup');
    expect(status.request.method).toBe('POST');
    expect(status.request.body).toMatch(/^\{/);
    const stdout = readFileSync(join(dir, 'first.xml'), 'utf8');
    for (const failure of [schema, status]) {
      expect(failure.id).toMatch(/^[0-9a-f]{8}(\.\d+)?$/);
      expect(stdout).toContain(`case ${failure.id}`);
      expect(readFileSync(join(dir, 'first.html'), 'utf8')).toContain(`case-${failure.id}`);
    }
    const ids = casesOf(report).map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps the run’s secrets out of the file, as placeholders', () => {
    const text = readFileSync(first, 'utf8');
    const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64');
    // Every token the run sent, as the recorder saw it.
    const tokens = new Set(
      recorder.seen.map((r) => /^bearer (.+)$/i.exec(r.headers.authorization ?? '')?.[1]).filter(Boolean),
    );
    expect(tokens.size).toBeGreaterThan(0);
    for (const secret of [credentials.clientSecret, basic, ...tokens]) expect(text).not.toContain(secret);
    expect(find('response_schema_conformance', 'getUser').request.headers.authorization).toBe(
      `Bearer \${TOKEN}`,
    );
    expect(find('response_schema_conformance', 'getUser').secrets).toEqual(['TOKEN']);
  });

  it('replays a case: the same request again, judged the same (exit 1 while it still fails)', async () => {
    for (const failure of [
      find('status_code_conformance', 'createGroup'),
      find('response_schema_conformance', 'getUser'),
    ]) {
      const before = recorder.seen.length;
      const result = await cli('replay', first, failure.id, ...login());
      const replayed = recorder.seen.slice(before).filter((r) => !r.url.startsWith('/oauth'));
      expect(
        replayed,
        recorder.seen
          .slice(before)
          .map((r) => `${r.method} ${r.url}`)
          .join('\n'),
      ).toHaveLength(1);
      const [sent] = replayed;
      if (!sent) throw new Error('the replay sent nothing');
      const stored = failure.request;
      expect(sent.method).toBe(stored.method);
      expect(`${recorder.url}${sent.url}`).toBe(stored.url);
      expect(sent.body).toBe(stored.body ?? '');
      for (const [name, value] of Object.entries(stored.headers))
        if (name !== 'authorization') expect(sent.headers[name]).toBe(value);
      expect(sent.headers.authorization).toMatch(/^Bearer (?!\$\{)\S+$/);
      if (failure.check === 'response_schema_conformance') {
        expect(result.status, result.stdout + result.stderr).toBe(1);
        expect(result.stdout).toContain(`REPRODUCED: case ${failure.id} still fails`);
        expect(result.stdout).toMatch(/required property 'email'/);
      }
    }
  }, 60_000);

  it('says a case no longer reproduces against a server without the defect (exit 0)', async () => {
    const failure = find('response_schema_conformance', 'getUser');
    const result = await cli('replay', first, failure.id, '--base-url', server.url, ...login());
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`NOT REPRODUCED: case ${failure.id} passes now`);
  }, 60_000);

  it('lists the cases, and refuses an unknown case or missing credentials (exit 2)', async () => {
    const list = await cli('replay', '--list', first);
    expect(list.status).toBe(0);
    for (const failure of casesOf(report)) expect(list.stdout).toContain(failure.id);
    const unknown = await cli('replay', first, 'ffffffff', ...login());
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('No case ffffffff');
    const anonymous = await cli('replay', first, find('response_schema_conformance', 'getUser').id);
    expect(anonymous.status).toBe(2);
    expect(anonymous.stderr).toContain('give --client-id and --client-secret');
    const notReport = await cli('replay', '--list', join(dir, 'first.xml'));
    expect(notReport.status).toBe(2);
  }, 60_000);

  it('with --baseline, a rerun with another seed counts the known failures apart (exit 0)', async () => {
    const result = await runAgainst(
      recorder.url,
      '8',
      '--baseline',
      first,
      '--report',
      join(dir, 'second.json'),
    );
    expect(result.status, result.stdout.slice(-3000)).toBe(0);
    expect(result.stdout).not.toMatch(/^FAILURES/m);
    const known = /^(\d+) known failures? from the baseline, not counted/m.exec(result.stdout);
    expect(known, result.stdout.slice(-3000)).not.toBeNull();
    expect(Number(known?.[1])).toBeGreaterThan(0);
    expect(result.stdout).toMatch(/0 failed, \d+ skipped — PASSED/);
  }, 120_000);

  it('with --baseline, a new defect is still reported (exit 1) and only it', async () => {
    const result = await runAgainst(morePlanted.url, '7', '--baseline', first);
    expect(result.status, result.stdout.slice(-3000)).toBe(1);
    const failures = [...result.stdout.matchAll(/^\d+\) (\w+) — (\w+) /gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(failures.length).toBeGreaterThan(0);
    expect(new Set(failures)).toEqual(new Set(['not_a_server_error listUsers']));
    expect(result.stdout).toMatch(/^\d+ known failures? from the baseline, not counted/m);
  }, 120_000);

  it('with --baseline, lists as fixed what no longer fails where it was checked', async () => {
    const result = await runAgainst(server.url, '7', '--baseline', first);
    expect(result.status, result.stdout.slice(-3000)).toBe(0);
    expect(result.stdout).toMatch(/^0 known failures from the baseline, not counted/m);
    const schema = find('response_schema_conformance', 'getUser');
    expect(result.stdout).toContain(
      `fixed since the baseline: case ${schema.id.split('.')[0]} response_schema_conformance — getUser`,
    );
  }, 120_000);
});
