// SSRF guard for webhook targets: a subscription URL may only point at globally reachable addresses,
// unless the operator allow-listed the host or a CIDR (PLATFORM_WEBHOOK_ALLOWLIST). The same rules
// run twice: when a subscription is created (checkWebhookTarget) and at delivery time on the address
// actually connected to (createGuardedLookup), so DNS that changes after the check cannot reach inside.
import dns from 'node:dns';
import net from 'node:net';

export type TargetCheck = { ok: true } | { ok: false; reason: string };

interface ParsedAddress {
  family: 4 | 6;
  value: bigint;
}

interface Range {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

interface NamedRange extends Range {
  name: string;
}

/** Parsed form of the allow-list: host names (exact, case-insensitive) and address ranges. */
export interface AllowList {
  hosts: Set<string>;
  ranges: Range[];
}

export class WebhookTargetRefusedError extends Error {
  override name = 'WebhookTargetRefusedError';
  readonly code = 'EWEBHOOKTARGETREFUSED';
}

const bitsOf = (family: 4 | 6): number => (family === 4 ? 32 : 128);

/** Parses an IP literal (any form the WHATWG URL parser accepts, e.g. `0x7f.1`) into a number. */
export function parseAddress(text: string): ParsedAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const kind = net.isIP(bare);
  if (kind === 4) {
    const octets = bare.split('.').map(Number);
    return { family: 4, value: octets.reduce((acc, o) => (acc << 8n) | BigInt(o), 0n) };
  }
  if (kind === 6) {
    // The URL parser canonicalises IPv6 (compressed, hex groups only, no dotted tail, no zone id).
    let canonical: string;
    try {
      canonical = new URL(`https://[${bare}]/`).hostname.slice(1, -1);
    } catch {
      return undefined;
    }
    const [head = '', tail] = canonical.split('::');
    const headGroups = head === '' ? [] : head.split(':');
    const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
    const zeros = tail === undefined ? [] : Array(8 - headGroups.length - tailGroups.length).fill('0');
    const groups = [...headGroups, ...zeros, ...tailGroups];
    if (groups.length !== 8) return undefined;
    return { family: 6, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n) };
  }
  return undefined;
}

function parseRange(text: string): Range | undefined {
  const [addressText = '', prefixText, ...rest] = text.split('/');
  if (rest.length > 0) return undefined;
  const address = parseAddress(addressText);
  if (!address) return undefined;
  const bits = bitsOf(address.family);
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits || !/^\d*$/.test(prefixText ?? '')) {
    return undefined;
  }
  const shift = BigInt(bits - prefix);
  return { family: address.family, network: (address.value >> shift) << shift, prefix };
}

function inRange(address: ParsedAddress, range: Range): boolean {
  if (address.family !== range.family) return false;
  const shift = BigInt(bitsOf(range.family) - range.prefix);
  return address.value >> shift === range.network >> shift;
}

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/**
 * Parses allow-list entries: `10.0.0.0/8`, `127.0.0.1` (a single address), `::1`, `hooks.internal`.
 * Throws with a message naming the bad entry, so config validation can report it at start.
 */
export function parseAllowList(entries: readonly string[]): AllowList {
  const allowList: AllowList = { hosts: new Set(), ranges: [] };
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const range = parseRange(entry);
    if (range) allowList.ranges.push(range);
    else if (!entry.includes('/') && HOST_NAME.test(entry)) allowList.hosts.add(normaliseHost(entry));
    else
      throw new Error(`webhook allow-list entry "${entry}" is neither a host name, an IP address nor a CIDR`);
  }
  return allowList;
}

function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

// Address space that is not globally reachable (IANA special-purpose registries). For IPv6 only
// 2000::/3 is global unicast; everything outside it is refused, with the better-known ranges named.
const NON_GLOBAL: NamedRange[] = (
  [
    ['0.0.0.0/8', '"this network" (0.0.0.0/8)'],
    ['10.0.0.0/8', 'private (RFC 1918)'],
    ['100.64.0.0/10', 'shared address space (100.64.0.0/10)'],
    ['127.0.0.0/8', 'loopback'],
    ['169.254.0.0/16', 'link-local'],
    ['172.16.0.0/12', 'private (RFC 1918)'],
    ['192.0.0.0/24', 'IETF protocol assignments (192.0.0.0/24)'],
    ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
    ['192.88.99.0/24', '6to4 relay anycast'],
    ['192.168.0.0/16', 'private (RFC 1918)'],
    ['198.18.0.0/15', 'benchmarking (198.18.0.0/15)'],
    ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
    ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
    ['224.0.0.0/4', 'multicast'],
    ['240.0.0.0/4', 'reserved (240.0.0.0/4, broadcast)'],
    ['::/128', 'unspecified'],
    ['::1/128', 'loopback'],
    ['::ffff:0:0/96', 'IPv4-mapped IPv6'],
    ['64:ff9b::/96', 'NAT64 (IPv4-embedded IPv6)'],
    ['64:ff9b:1::/48', 'NAT64 local use'],
    ['100::/64', 'discard-only'],
    ['fc00::/7', 'unique-local (fc00::/7)'],
    ['fe80::/10', 'link-local'],
    ['fec0::/10', 'site-local (deprecated)'],
    ['ff00::/8', 'multicast'],
    ['2001::/23', 'IETF protocol assignments (2001::/23, Teredo)'],
    ['2001:db8::/32', 'documentation'],
    ['2002::/16', '6to4 (IPv4-embedded IPv6)'],
    ['3fff::/20', 'documentation'],
  ] as const
).map(([cidr, name]) => {
  const range = parseRange(cidr);
  if (!range) throw new Error(`bad built-in range ${cidr}`);
  return { ...range, name };
});

const GLOBAL_UNICAST_V6 = parseRange('2000::/3') as Range;

/** Why an address is not globally reachable, or undefined when it is. */
export function nonGlobalReason(address: ParsedAddress): string | undefined {
  const named = NON_GLOBAL.find((range) => inRange(address, range));
  if (named) return named.name;
  if (address.family === 6 && !inRange(address, GLOBAL_UNICAST_V6)) return 'not global unicast IPv6';
  return undefined;
}

/** The IPv4 address embedded in an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
function embeddedIpv4(address: ParsedAddress): ParsedAddress | undefined {
  if (address.family === 6 && address.value >> 32n === 0xffffn) {
    return { family: 4, value: address.value & 0xffffffffn };
  }
  return undefined;
}

function isAllowListedAddress(address: ParsedAddress, allowList: AllowList): boolean {
  const mapped = embeddedIpv4(address);
  return allowList.ranges.some((range) => inRange(address, range) || (mapped && inRange(mapped, range)));
}

/** Refusal reason for one resolved address of `host`, or undefined when it may be contacted. */
export function addressRefusal(host: string, addressText: string, allowList: AllowList): string | undefined {
  const address = parseAddress(addressText);
  if (!address) return `${host} resolved to an unparseable address "${addressText}"`;
  if (isAllowListedAddress(address, allowList)) return undefined;
  const reason = nonGlobalReason(address);
  if (!reason) return undefined;
  const shown = host === addressText ? addressText : `${host} resolves to ${addressText}, which`;
  return `${shown} is not a globally reachable address (${reason}); allow-list it in PLATFORM_WEBHOOK_ALLOWLIST to permit it`;
}

function lookupAll(host: string): Promise<dns.LookupAddress[]> {
  return dns.promises.lookup(host, { all: true, verbatim: true });
}

/**
 * Checks a webhook target before a subscription is stored: https only, the host resolves, and every
 * address it resolves to is globally reachable or allow-listed (by host name, address or CIDR).
 */
export async function checkWebhookTarget(url: string, allowList: string[]): Promise<TargetCheck> {
  let parsedAllowList: AllowList;
  try {
    parsedAllowList = parseAllowList(allowList);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, reason: 'the url is not a valid absolute URL' };
  }
  if (target.protocol !== 'https:') return { ok: false, reason: 'the url must use https://' };
  if (target.username || target.password) {
    return { ok: false, reason: 'the url must not contain credentials; use the integration headers instead' };
  }
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (host === '') return { ok: false, reason: 'the url has no host' };
  if (net.isIP(host)) {
    const refusal = addressRefusal(host, host, parsedAllowList);
    return refusal ? { ok: false, reason: refusal } : { ok: true };
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await lookupAll(host);
  } catch (error) {
    return {
      ok: false,
      reason: `the host ${host} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${host} has no address` };
  if (parsedAllowList.hosts.has(normaliseHost(host))) return { ok: true };
  for (const { address } of addresses) {
    const refusal = addressRefusal(host, address, parsedAllowList);
    if (refusal) return { ok: false, reason: refusal };
  }
  return { ok: true };
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls connections that resolves like the default and refuses (with
 * WebhookTargetRefusedError) when any resolved address is not allowed, so the address actually
 * connected to is always one that passed the guard. IP-literal hosts never reach a lookup
 * function: callers check them with addressRefusal first.
 */
export function createGuardedLookup(allowList: AllowList) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as dns.LookupAddress[];
      if (list.length === 0)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      if (!allowList.hosts.has(normaliseHost(hostname))) {
        for (const { address } of list) {
          const refusal = addressRefusal(hostname, address, allowList);
          if (refusal) return callback(new WebhookTargetRefusedError(refusal), []);
        }
      }
      if (options.all) return callback(null, list);
      const first = list[0] as dns.LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

/** Refusal reason for a URL's host when it is an IP literal (which bypasses `lookup`). */
export function literalHostRefusal(target: URL, allowList: AllowList): string | undefined {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return net.isIP(host) ? addressRefusal(host, host, allowList) : undefined;
}
