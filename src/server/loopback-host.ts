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

/** Throws `insecure_bind` for any other host: without authentication, engram serves this machine only. */
export function assertLoopbackHost(host: string): void {
  if (isLoopbackHost(host)) return;
  throw new EngramError(
    'insecure_bind',
    'forbidden',
    `Refusing to listen on ${host}: authentication is not implemented yet, so engram only binds a loopback ` +
      'address (127.0.0.0/8, ::1, localhost)',
    { details: { host } },
  );
}
