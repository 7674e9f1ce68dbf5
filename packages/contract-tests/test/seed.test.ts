// A seed reproduces a run: the same seed sends the same requests in the same order, another seed others.
// The target is a fetch that records and answers 404, so only the seed decides what is sent.
import { describe, expect, it } from 'vitest';
import { ContractClient, loadBundle, runContractTests, SpecValidator } from '../src/index.js';

const validator = new SpecValidator(loadBundle('platform-public'));

async function sentWith(seed: number): Promise<string[]> {
  const sent: string[] = [];
  const record: typeof fetch = async (input, init) => {
    const body = init?.body;
    // Bytes (malformed JSON bodies) as hex, so that they are compared too.
    const text =
      typeof body === 'string' ? body : body instanceof Uint8Array ? Buffer.from(body).toString('hex') : '';
    sent.push(`${init?.method} ${String(input)} ${text}`);
    return new Response('{}', { status: 404, headers: { 'content-type': 'application/json' } });
  };
  const client = new ContractClient({
    validator,
    baseUrl: 'http://target.invalid',
    credentials: { bearer: 'token', basic: { username: 'id', password: 'secret' } },
    fetch: record,
  });
  await runContractTests({
    api: 'platform',
    target: 'a recording fetch',
    validator,
    client,
    seed,
    runId: 'run',
    maxExamples: 10,
    phases: ['examples', 'coverage', 'fuzz'],
  });
  return sent;
}

describe('--seed', () => {
  it('sends the same requests for the same seed, and others for another', async () => {
    const first = await sentWith(7);
    expect(first.length).toBeGreaterThan(500);
    // Among them bodies that are no JSON text (cut short, not UTF-8), sent as bytes.
    expect(first.some((line) => /^(POST|PUT|PATCH) \S+ [0-9a-f]+$/.test(line))).toBe(true);
    expect(await sentWith(7)).toEqual(first);
    expect(await sentWith(8)).not.toEqual(first);
  }, 120_000);
});
