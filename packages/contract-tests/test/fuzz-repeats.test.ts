// The fuzz phase sends a generated request once: fast-check drawing it again (a small input space) or
// shrinking to it takes the verdict of its first answer. The target is a fetch that records every request.
import { describe, expect, it } from 'vitest';
import { loadBundle, runContractTests, SpecValidator } from '../src/index.js';
import { recordingClient } from './support/recording.js';

const validator = new SpecValidator(loadBundle('platform-public'));
const runId = 'zq9run';

async function fuzz(status: number) {
  const { client, sent: recorded } = recordingClient(validator, () => Response.json({}, { status }));
  const report = await runContractTests({
    api: 'platform',
    target: 'a recording fetch',
    validator,
    client,
    seed: 3,
    runId,
    maxExamples: 30,
    phases: ['fuzz'],
  });
  // The run's fresh tags masked: requests that differ only in them are the same request.
  const sent = recorded.map((line) => line.replace(new RegExp(`${runId}[0-9a-z]+`, 'g'), '<tag>'));
  return { sent, report };
}

describe('the fuzz phase', () => {
  it('sends no request twice, and a parameterless operation once', async () => {
    const { sent } = await fuzz(404);
    expect(sent.length).toBeGreaterThan(200);
    expect(new Set(sent).size).toBe(sent.length);
    expect(
      sent.filter((line) => line.startsWith('GET http://target.invalid/.well-known/jwks.json')),
    ).toHaveLength(1);
  }, 120_000);

  it('records a failure that fast-check met again as a repeat', async () => {
    const { report } = await fuzz(500);
    const jwks = report.results.find(
      (result) => result.check === 'not_a_server_error' && result.operationId === 'getJsonWebKeySet',
    );
    expect(jwks?.outcome).toBe('failed');
    expect(jwks?.failures[0]?.request.url).toBe('http://target.invalid/.well-known/jwks.json');
  }, 120_000);
});
