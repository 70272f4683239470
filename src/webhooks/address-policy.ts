/**
 * Where a webhook may be sent (docs/webhooks.md, "Safe to point anywhere"): `https` only, and
 * never to an address inside the deployment's network — loopback, private, link-local (the cloud
 * metadata address included), multicast, unspecified or reserved — unless its host is listed in
 * WEBHOOK_ALLOWED_HOSTS. Checked when an endpoint is saved and again for the address each
 * connection actually uses, so a name that resolves elsewhere later (DNS rebinding) is refused.
 */
import { BlockList, isIP } from 'node:net';

type AddressKind = 'loopback' | 'private' | 'link-local' | 'multicast' | 'unspecified' | 'reserved';

const RANGES: [AddressKind, 'ipv4' | 'ipv6', string, number][] = [
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '100.64.0.0', 10],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['reserved', 'ipv4', '192.0.2.0', 24],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['reserved', 'ipv4', '198.18.0.0', 15],
  ['reserved', 'ipv4', '198.51.100.0', 24],
  ['reserved', 'ipv4', '203.0.113.0', 24],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['private', 'ipv6', 'fc00::', 7],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['multicast', 'ipv6', 'ff00::', 8],
  ['reserved', 'ipv6', '2001:db8::', 32],
  ['reserved', 'ipv6', '100::', 64],
];

const LISTS = new Map<AddressKind, BlockList>();
for (const [kind, family, network, prefix] of RANGES) {
  const list = LISTS.get(kind) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  LISTS.set(kind, list);
}

/** An IPv4 address carried inside an IPv6 one (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`), which reaches that IPv4 host. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return undefined;
  if (match[1] !== undefined) return match[1];
  const high = parseInt(match[2]!, 16);
  const low = parseInt(match[3]!, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** What kind of internal address `address` is, or undefined for a public one. */
export function internalKind(address: string): AddressKind | undefined {
  const family = isIP(address);
  if (family === 0) return 'reserved';
  if (family === 6) {
    const v4 = embeddedIpv4(address.toLowerCase());
    if (v4 !== undefined) return internalKind(v4);
  }
  for (const [kind, list] of LISTS) if (list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return kind;
  return undefined;
}

/** Hosts that may use http and internal addresses (WEBHOOK_ALLOWED_HOSTS). */
export class AllowedHosts {
  private readonly hosts: ReadonlySet<string>;

  constructor(hosts: readonly string[]) {
    this.hosts = new Set(hosts.map((host) => host.toLowerCase()));
  }

  has(hostname: string): boolean {
    return this.hosts.has(bareHost(hostname));
  }
}

/** `[::1]` → `::1`, lower case, no trailing dot. */
export const bareHost = (hostname: string) => hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');

const ARTICLE: Record<AddressKind, string> = {
  loopback: 'a loopback',
  private: 'a private',
  'link-local': 'a link-local',
  multicast: 'a multicast',
  unspecified: 'an unspecified',
  reserved: 'a reserved',
};

/** Why an address may not be connected to, or undefined when it may. */
export function refusedAddress(host: string, address: string): string | undefined {
  const kind = internalKind(address);
  if (kind === undefined) return undefined;
  const what = bareHost(host) === address ? `address ${address} is` : `host "${bareHost(host)}" resolves to ${address}, which is`;
  return `${what} ${ARTICLE[kind]} address; only hosts in WEBHOOK_ALLOWED_HOSTS may be internal`;
}
