// The rules the platform spec states as extensions (x-required-in-one-of, x-public-host, x-state: {records}),
// read from the bundle.
import { describe, expect, it } from 'vitest';
import type { SentRequest } from '../src/client.js';
import { loadBundle, SpecValidator } from '../src/index.js';
import { documentedRefusal } from '../src/run/spec-rules.js';

const validator = new SpecValidator(loadBundle('platform-public'));
const request = (url: string, body?: { type: string; text: string }): SentRequest => ({
  method: 'POST',
  url: `http://127.0.0.1:3000${url}`,
  headers: body ? { 'content-type': body.type } : {},
  ...(body ? { body: body.text } : {}),
});
const refusal = (operationId: string, sent: SentRequest) =>
  documentedRefusal(validator, validator.operation(operationId), sent);

describe('documentedRefusal', () => {
  it('x-required-in-one-of: grant_type in the query or the form, else certainly refused', () => {
    const form = (text: string) => ({ type: 'application/x-www-form-urlencoded', text });
    expect(refusal('createAccessToken', request('/oauth/token'))).toEqual({
      certain: true,
      reason: 'grant_type is in none of query, body (x-required-in-one-of)',
    });
    expect(refusal('createAccessToken', request('/oauth/token', form('scope=user')))).toMatchObject({
      certain: true,
    });
    expect(
      refusal('createAccessToken', request('/oauth/token?grant_type=client_credentials')),
    ).toBeUndefined();
    expect(
      refusal('createAccessToken', request('/oauth/token', form('grant_type=client_credentials'))),
    ).toBeUndefined();
  });

  it("x-public-host: a subscription URL is the target's to accept or refuse", () => {
    const json = JSON.stringify({ eventType: 'MESSAGE_POSTED', url: 'https://z009496vu9.example.com/ev' });
    expect(
      refusal(
        'createSubscription',
        request('/v1/chat/integrations/x/subscriptions', { type: 'application/json', text: json }),
      ),
    ).toEqual({
      certain: false,
      reason: 'whether the target accepts the host of https://z009496vu9.example.com/ev (x-public-host)',
    });
  });

  it("x-state: {records}: whether a CSV body's records fit is the item's columns' to say", () => {
    const csv = (text: string) => request('/v1/datasets/x/data', { type: 'text/csv; charset=utf-8', text });
    for (const text of ['a,1\r\n', 'V~"P*3bV'])
      expect(refusal('importDatasetData', csv(text))).toEqual({
        certain: false,
        reason: "whether its records fit the item's columns (x-state: {records})",
      });
  });

  it('says nothing against a request the spec has no such rule for', () => {
    const json = JSON.stringify({ name: 'Ops', default: false });
    expect(
      refusal('createGroup', request('/v1/groups', { type: 'application/json', text: json })),
    ).toBeUndefined();
  });
});
