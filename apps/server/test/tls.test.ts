import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  freePort,
  type SelfSignedCertificate,
  selfSignedCertificate,
  startTimeoutMs,
} from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig, parseFlags } from '../src/config.js';

/*
 * `serve --tls-cert/--tls-key`: the real binary listens with HTTPS (clients that only speak HTTPS, such as
 * the service's Node SDK, reach it), says https:// wherever it names itself, and refuses a half or broken
 * TLS configuration before it starts.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The local port of the connection, to tell a reused (kept-alive) connection from a new one. */
  localPort: number | undefined;
}

/** One request over node:https (or node:http) with its own options: `ca` trusts the test certificate. */
function get(url: string, options: RequestOptions = {}, body?: { auth: string }): Promise<Answer> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        ...options,
        method: body ? 'POST' : 'GET',
        ...(body ? { auth: body.auth } : {}),
        timeout: 30_000,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text,
            localPort: response.socket?.localPort,
          }),
        );
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end();
  });
}

function problemsOf(argv: string[], env: Record<string, string> = {}): string[] {
  try {
    loadConfig(parseFlags(argv).flags, env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

let cert: SelfSignedCertificate;
let other: SelfSignedCertificate;
beforeAll(() => {
  cert = selfSignedCertificate();
  other = selfSignedCertificate();
});
afterAll(() => {
  cert?.remove();
  other?.remove();
});

describe('TLS configuration', () => {
  it('serves HTTPS with both files, and the default public URL says https://', () => {
    const config = loadConfig(parseFlags(['--tls-cert', cert.certFile, '--tls-key', cert.keyFile]).flags, {});
    expect(config.tls).toEqual({ cert: cert.cert, key: cert.key });
    expect(config.publicUrl).toBe('https://localhost:3000');
    const fromEnv = loadConfig(new Map(), {
      PLATFORM_TLS_CERT: cert.certFile,
      PLATFORM_TLS_KEY: cert.keyFile,
      PORT: '3443',
    });
    expect(fromEnv.publicUrl).toBe('https://localhost:3443');
    // A public URL given is kept as given (a proxy in front may change the scheme).
    const given = loadConfig(
      parseFlags([
        '--tls-cert',
        cert.certFile,
        '--tls-key',
        cert.keyFile,
        '--public-url',
        'https://api.example.com',
      ]).flags,
      {},
    );
    expect(given.publicUrl).toBe('https://api.example.com');
  });

  it('is plain HTTP without them', () => {
    const config = loadConfig(new Map(), {});
    expect(config.tls).toEqual({ cert: undefined, key: undefined });
    expect(config.publicUrl).toBe('http://localhost:3000');
  });

  it('takes both files or neither', () => {
    expect(problemsOf(['--tls-cert', cert.certFile])).toEqual([
      '--tls-cert and --tls-key go together: --tls-key (PLATFORM_TLS_KEY) is not set',
    ]);
    expect(problemsOf([], { PLATFORM_TLS_KEY: cert.keyFile })).toEqual([
      '--tls-cert and --tls-key go together: --tls-cert (PLATFORM_TLS_CERT) is not set',
    ]);
  });

  it('names a file it cannot read, or that holds the wrong thing', () => {
    const missing = join(cert.dir, 'missing.pem');
    const [unreadable, ...more] = problemsOf(['--tls-cert', missing, '--tls-key', cert.keyFile]);
    expect(more).toEqual([]);
    expect(unreadable).toMatch(
      /^--tls-cert must be a readable file of PEM certificates, got ".*missing\.pem"/,
    );
    expect(unreadable).toContain('ENOENT');
    // The two files swapped: each is refused for what it holds.
    const swapped = problemsOf(['--tls-cert', cert.keyFile, '--tls-key', cert.certFile]);
    expect(swapped).toHaveLength(2);
    expect(swapped[0]).toMatch(/^--tls-cert .*it holds no PEM certificate/);
    expect(swapped[1]).toMatch(/^--tls-key .*it holds no PEM private key/);
  });

  it('refuses a key that is not the certificate’s', () => {
    const problems = problemsOf(['--tls-cert', cert.certFile, '--tls-key', other.keyFile]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^--tls-key and --tls-cert must be a private key and its certificate/);
  });

  it('refuses an encrypted key (there is no passphrase option)', () => {
    const encrypted = join(cert.dir, 'encrypted.pem');
    writeFileSync(
      encrypted,
      '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n',
    );
    const [problem] = problemsOf(['--tls-cert', cert.certFile, '--tls-key', encrypted]);
    expect(problem).toMatch(/^--tls-key .*the key is encrypted/);
  });
});

describe('serve over HTTPS (the binary)', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  let output = '';
  let port: number;
  let base: string;

  beforeAll(async () => {
    // The binary is what users run: build it when the test runs before `build`.
    if (!existsSync(cli))
      execFileSync(join(root, 'node_modules', '.bin', 'tsup'), { cwd: root, stdio: 'ignore' });
    dataDir = mkdtempSync(join(tmpdir(), 'platform-tls-'));
    port = await freePort();
    base = `https://127.0.0.1:${port}`;
    const env = { ...process.env };
    for (const name of ['PLATFORM_PUBLIC_URL', 'DATABASE_URL', 'PLATFORM_TLS_CERT', 'PLATFORM_TLS_KEY'])
      delete env[name];
    child = spawn(
      process.execPath,
      [
        cli,
        'serve',
        ...['--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir],
        ...['--tls-cert', cert.certFile, '--tls-key', cert.keyFile, '--log-level', 'warn'],
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
    await vi.waitFor(
      async () => {
        expect(child?.exitCode, output).toBeNull();
        expect((await get(`${base}/readyz`, { ca: cert.cert })).status).toBe(200);
      },
      { timeout: startTimeoutMs(), interval: 200 },
    );
  }, startTimeoutMs() + 30_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers over HTTPS when the certificate is trusted through `ca`', async () => {
    const answer = await get(`${base}/`, { ca: cert.cert });
    expect(answer.status).toBe(200);
    const index = JSON.parse(answer.body) as { links: Record<string, string> };
    expect(index.links.health).toBe('/healthz');
  });

  it('is refused by a client that does not trust the certificate', async () => {
    await expect(get(`${base}/healthz`)).rejects.toThrow(/self[- ]signed/i);
  });

  it('gives no HTTP answer to plain HTTP on its port', async () => {
    await expect(get(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('keeps connections alive as over HTTP', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: cert.cert });
    try {
      const first = await get(`${base}/healthz`, { agent });
      const second = await get(`${base}/healthz`, { agent });
      expect(first.headers.connection).toBe('keep-alive');
      expect(second.localPort).toBe(first.localPort);
    } finally {
      agent.destroy();
    }
  });

  it('names itself https:// in the printed credentials and in the tokens it issues', async () => {
    const line = output.split('\n').find((l) => l.startsWith('PLATFORM_DEV_CREDENTIALS '));
    expect(line, output).toBeDefined();
    const credentials = JSON.parse(line?.slice('PLATFORM_DEV_CREDENTIALS '.length) ?? '{}') as {
      clientId: string;
      clientSecret: string;
      tokenUrl: string;
    };
    expect(credentials.tokenUrl).toBe(`https://localhost:${port}/oauth/token`);
    const answer = await get(
      `${base}/oauth/token?grant_type=client_credentials&scope=user`,
      { ca: cert.cert },
      { auth: `${credentials.clientId}:${credentials.clientSecret}` },
    );
    expect(answer.status, answer.body).toBe(200);
    const token = (JSON.parse(answer.body) as { access_token: string }).access_token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      iss: string;
    };
    expect(claims.iss).toBe(`https://localhost:${port}`);
  });

  it('warns when the public URL it is given says http://', async () => {
    // Its own data directory: the server above holds the lock on `dataDir` (one server per directory).
    const ownDataDir = join(dataDir, 'second');
    const warned = spawn(
      process.execPath,
      [
        cli,
        'serve',
        ...['--port', String(await freePort()), '--host', '127.0.0.1', '--data-dir', ownDataDir],
        ...['--tls-cert', cert.certFile, '--tls-key', cert.keyFile, '--log-level', 'warn'],
        ...['--public-url', 'http://localhost:3000', '--bootstrap', 'false', '--delivery', 'false'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let seen = '';
    warned.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
    });
    try {
      await vi.waitFor(
        () => expect(seen).toContain('the server speaks HTTPS but --public-url says http://'),
        {
          timeout: startTimeoutMs(),
          interval: 100,
        },
      );
    } finally {
      const exited = new Promise((resolve) => warned.once('exit', resolve));
      warned.kill('SIGTERM');
      await exited;
    }
  });

  it('exits with code 2 and one line naming an unreadable file', () => {
    const missing = join(dataDir, 'missing-cert.pem');
    let status: number | null = null;
    let stderr = '';
    try {
      execFileSync(
        process.execPath,
        [cli, 'serve', '--data-dir', dataDir, '--tls-cert', missing, '--tls-key', cert.keyFile],
        { encoding: 'utf8', stdio: 'pipe' },
      );
    } catch (error) {
      ({ status, stderr } = error as { status: number; stderr: string });
    }
    expect(status).toBe(2);
    const problems = stderr.split('\n').filter((l) => l.startsWith('  - '));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`--tls-cert must be a readable file of PEM certificates, got "${missing}"`);
  });
});
