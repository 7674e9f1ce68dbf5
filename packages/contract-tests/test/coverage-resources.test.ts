// The coverage phase covers an operation that names a resource on one the run made, where the spec's links
// lead there, and puts the bounds inside a body in place: joinChannel's `userIds: [1]` goes to the channel
// createChannel answered with, not to the example's id, which no real server has. The target is a fetch
// that records every request and makes channels only.
import { describe, expect, it } from 'vitest';
import { loadBundle, runContractTests, SpecValidator } from '../src/index.js';
import { recordingClient } from './support/recording.js';

const validator = new SpecValidator(loadBundle('platform'));
const made = 'channel-the-run-made';

describe('the coverage phase', () => {
  it('sends the bounds inside a body to a resource the run made', async () => {
    const { client, sent } = recordingClient(validator, (method, url) =>
      method === 'POST' && url.pathname === '/v1/chat/channels'
        ? Response.json({ id: made, title: 'made' }, { status: 201 })
        : Response.json({}, { status: 404 }),
    );
    await runContractTests({
      api: 'platform',
      target: 'a recording fetch',
      validator,
      client,
      seed: 3,
      phases: ['coverage'],
    });
    const joins = sent.filter((line) => /^POST \S+\/v1\/chat\/channels\/[^/]+\/members /.test(line));
    expect(joins).toContain(`POST http://target.invalid/v1/chat/channels/${made}/members {"userIds":[1]}`);
    // Every body case goes to the made channel; the path parameter's own cases go where they say.
    const bodies = joins.filter((line) => line.includes('"userIds":[1]'));
    expect(bodies.every((line) => line.includes(`/channels/${made}/`))).toBe(true);
  }, 120_000);
});
