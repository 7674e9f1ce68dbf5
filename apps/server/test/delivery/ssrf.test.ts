import { describe, expect, it } from 'vitest';
import {
  checkWebhookTarget,
  nonGlobalReason,
  parseAddress,
  parseAllowList,
} from '../../src/delivery/ssrf.js';

const refused = async (url: string, allowList: string[] = []) => {
  const result = await checkWebhookTarget(url, allowList);
  expect(result.ok, `${url} should be refused`).toBe(false);
  return result.ok ? '' : result.reason;
};

describe('checkWebhookTarget', () => {
  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://127.1.2.3:8443/hook', 'loopback'],
    ['https://2130706433/hook', 'loopback'], // decimal form of 127.0.0.1
    ['https://0x7f.1/hook', 'loopback'],
    ['https://10.1.2.3/hook', 'RFC 1918'],
    ['https://172.16.0.1/hook', 'RFC 1918'],
    ['https://192.168.1.1/hook', 'RFC 1918'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://100.64.0.1/hook', '100.64.0.0/10'],
    ['https://0.0.0.0/hook', '0.0.0.0/8'],
    ['https://224.0.0.1/hook', 'multicast'],
    ['https://255.255.255.255/hook', 'reserved'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[::]/hook', 'unspecified'],
    ['https://[::ffff:127.0.0.1]/hook', 'IPv4-mapped'],
    ['https://[::ffff:8.8.8.8]/hook', 'IPv4-mapped'],
    ['https://[fd00::1]/hook', 'unique-local'],
    ['https://[fe80::1]/hook', 'link-local'],
    ['https://[ff02::1]/hook', 'multicast'],
    ['https://[64:ff9b::a00:1]/hook', 'NAT64'],
    ['https://[2002:7f00:1::]/hook', '6to4'],
  ])('refuses %s (%s)', async (url, why) => {
    expect(await refused(url)).toContain(why);
  });

  it('refuses a host name that resolves to a loopback address, naming both', async () => {
    const reason = await refused('https://localhost:8443/hook');
    expect(reason).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
    expect(reason).toContain('PLATFORM_WEBHOOK_ALLOWLIST');
  });

  it('refuses anything but https, credentials in the url and garbage', async () => {
    expect(await refused('http://example.com/hook')).toContain('https');
    expect(await refused('ftp://example.com/hook')).toContain('https');
    expect(await refused('https://user:pw@example.com/hook')).toContain('credentials');
    expect(await refused('not a url')).toContain('valid');
  });

  it('refuses a host that does not resolve', async () => {
    expect(await refused('https://no-such-host.invalid/hook')).toContain('cannot be resolved');
  });

  it('accepts global addresses', async () => {
    expect(await checkWebhookTarget('https://8.8.8.8/hook', [])).toEqual({ ok: true });
    expect(await checkWebhookTarget('https://[2606:4700:4700::1111]/hook', [])).toEqual({ ok: true });
  });

  it('accepts non-global addresses that are allow-listed by CIDR, address or host name', async () => {
    expect(await checkWebhookTarget('https://127.0.0.1:8443/hook', ['127.0.0.1/32'])).toEqual({ ok: true });
    expect(await checkWebhookTarget('https://10.9.8.7/hook', ['10.0.0.0/8'])).toEqual({ ok: true });
    expect(await checkWebhookTarget('https://[::1]/hook', ['::1'])).toEqual({ ok: true });
    expect(await checkWebhookTarget('https://localhost/hook', ['LocalHost'])).toEqual({ ok: true });
    // The allow-listed IPv4 address also covers its IPv4-mapped IPv6 form.
    expect(await checkWebhookTarget('https://[::ffff:127.0.0.1]/hook', ['127.0.0.1/32'])).toEqual({
      ok: true,
    });
    // Allow-listing one range does not open others.
    expect(await refused('https://10.9.8.7/hook', ['127.0.0.1/32'])).toContain('RFC 1918');
    expect(await refused('https://169.254.169.254/hook', ['127.0.0.0/8'])).toContain('link-local');
  });

  it('reports an invalid allow-list entry instead of ignoring it', async () => {
    expect(await refused('https://8.8.8.8/hook', ['10.0.0.0/33'])).toContain('10.0.0.0/33');
    expect(() => parseAllowList(['not a host!'])).toThrow(/not a host!/);
    expect(() => parseAllowList(['::1/200'])).toThrow(/::1\/200/);
  });
});

describe('address classification', () => {
  it('parses IPv4 and IPv6 in every textual form', () => {
    expect(parseAddress('127.0.0.1')).toEqual({ family: 4, value: 0x7f000001n });
    expect(parseAddress('::ffff:127.0.0.1')).toEqual({ family: 6, value: 0xffff7f000001n });
    expect(parseAddress('[::1]')).toEqual({ family: 6, value: 1n });
    expect(parseAddress('2001:db8::1:0:0:1')?.value).toBe(0x20010db8000000000001000000000001n);
    expect(parseAddress('example.com')).toBeUndefined();
  });

  it('treats only 2000::/3 as global IPv6, minus documentation and tunnelling ranges', () => {
    const reason = (text: string) =>
      nonGlobalReason(parseAddress(text) as NonNullable<ReturnType<typeof parseAddress>>);
    expect(reason('2606:4700::1')).toBeUndefined();
    expect(reason('2001:db8::1')).toBe('documentation');
    expect(reason('2001:0::1')).toContain('Teredo');
    expect(reason('4000::1')).toBe('not global unicast IPv6');
    expect(reason('1.1.1.1')).toBeUndefined();
    expect(reason('198.51.100.7')).toContain('TEST-NET-2');
  });
});
