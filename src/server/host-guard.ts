import { EngramError } from '../core/errors.js';
import { isLoopbackHost } from './loopback-host.js';

/** The names loopback requests carry in `Host` (any port). */
export const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** How many permitted `Host` (and, apart, `Origin`) values a host guard remembers. */
export const PASSED_VALUES_KEPT = 64;

/** The host name of a `Host` header value (`name[:port]`), lower-cased; undefined when it does not parse. */
export function hostnameOfHost(value: string): string | undefined {
  try {
    return new URL(`http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

/** The host name of an `Origin` (`scheme://name[:port]`); undefined for `null` and anything else that does not parse. */
export function hostnameOfOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname : undefined;
  } catch {
    return undefined;
  }
}

/** A `Host` or `Origin` this server refuses while authentication is off: 403 `host_not_allowed`. */
export class HostNotAllowedError extends EngramError {
  constructor(header: 'host' | 'origin', value: string) {
    const shown = value.length > 100 ? `${value.slice(0, 100)}…` : value;
    super(
      'host_not_allowed',
      'forbidden',
      `${header === 'host' ? 'Host' : 'Origin'} ${JSON.stringify(shown)} is not allowed while authentication ` +
        'is off: only loopback names (localhost, 127.0.0.1, [::1]) and the allowedHosts setting ' +
        '(ENGRAM_ALLOWED_HOSTS, --allowed-hosts) are served, against DNS rebinding (docs/auth.md)',
      { details: { header } },
    );
    this.name = 'HostNotAllowedError';
  }
}

/**
 * Against DNS rebinding: while authentication is off (the server listens on loopback only), a web
 * page whose name an attacker re-points to 127.0.0.1 must not reach the server, so `Host` (and
 * `Origin`, when a browser sends one) must name loopback or a host of `allowed` (host names without
 * port; compared port-agnostically, as the MCP SDK's host validation does). A request without
 * `Host` (HTTP/1.0, not a browser) passes; an `Origin` of `null` does not.
 */
export function createHostGuard(allowed: readonly string[]): (headers: Record<string, unknown>) => void {
  const names = new Set(allowed.map((name) => hostnameOfHost(name) ?? name.toLowerCase()));
  const permitted = (hostname: string | undefined) =>
    hostname !== undefined && (isLoopbackHost(hostname) || names.has(hostname));
  // Clients send the same few values on every request: remembering those that passed saves a URL
  // parse and an address check per request. Bounded, since the values are the client's to choose.
  const passedHosts = new Set<string>();
  const passedOrigins = new Set<string>();
  const passes = (value: string, passed: Set<string>, hostname: (value: string) => string | undefined) => {
    if (passed.has(value)) return true;
    if (!permitted(hostname(value))) return false;
    if (passed.size < PASSED_VALUES_KEPT) passed.add(value);
    return true;
  };
  return (headers) => {
    const host = headers.host;
    if (typeof host === 'string' && !passes(host, passedHosts, hostnameOfHost)) {
      throw new HostNotAllowedError('host', host);
    }
    const origin = headers.origin;
    if (typeof origin === 'string' && !passes(origin, passedOrigins, hostnameOfOrigin)) {
      throw new HostNotAllowedError('origin', origin);
    }
  };
}

/**
 * The exact `Host` and `Origin` values the MCP SDK's own DNS-rebinding check accepts on a server
 * bound to `port` (the SDK compares whole header values): loopback names and `allowed`, bare, with
 * this port, and as written (an entry may carry a proxy's port), over http and https.
 */
export function exactHostValues(allowed: readonly string[], port: number) {
  const names = [...LOOPBACK_HOSTNAMES, ...allowed.map((name) => hostnameOfHost(name) ?? name)];
  const hosts = [...new Set([...names.flatMap((name) => [name, `${name}:${port}`]), ...allowed])];
  const origins = hosts.flatMap((host) => [`http://${host}`, `https://${host}`]);
  return { hosts, origins };
}
