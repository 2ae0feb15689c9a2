import { BlockList, isIP } from 'node:net';
import { EngramError } from '../core/errors.js';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** True for `localhost` and addresses in 127.0.0.0/8 or ::1 (also IPv4-mapped), the hosts only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  const family = isIP(bare);
  if (family === 0) return false;
  return loopback.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Throws `insecure_bind` for a non-loopback host while authentication is disabled: without
 * credentials, engram serves this machine only.
 */
export function assertLoopbackHost(host: string, authMode: 'disabled' | 'enabled' = 'disabled'): void {
  if (authMode === 'enabled' || isLoopbackHost(host)) return;
  throw new EngramError(
    'insecure_bind',
    'forbidden',
    `Refusing to listen on ${host} with authentication disabled: enable it (auth.mode "enabled", ` +
      'ENGRAM_AUTH_MODE=enabled or --auth enabled; see docs/auth.md) or bind a loopback address ' +
      '(127.0.0.0/8, ::1, localhost)',
    { details: { host } },
  );
}
