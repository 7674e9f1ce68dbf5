// A seed reproduces a run: the same seed sends the same requests in the same order, another seed others.
// The target is a fetch that records and answers 404, so only the seed decides what is sent.
import { describe, expect, it } from 'vitest';
import { loadBundle, runContractTests, SpecValidator } from '../src/index.js';
import { recordingClient } from './support/recording.js';

const validator = new SpecValidator(loadBundle('platform-public'));

async function sentWith(seed: number): Promise<string[]> {
  const { client, sent } = recordingClient(validator, () => Response.json({}, { status: 404 }));
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
