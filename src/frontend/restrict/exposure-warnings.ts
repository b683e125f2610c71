import { isIPv4, isIPv6 } from 'node:net';
import type { RestrictionTable } from './parse-restrictions.js';

/** One front end as `tributary serve` starts it. */
export interface FrontEndExposure {
  name: 'HTTP' | 'gRPC';
  host: string;
  restrictions: RestrictionTable;
}

/** The flag that restricts each front end, and the one that sets its address. */
const FLAGS = {
  HTTP: { restrict: '--http-restricted-api', address: '--http-address' },
  gRPC: { restrict: '--grpc-restricted-protocol', address: '--grpc-address' },
} as const;

/** 127.0.0.0/8, ::1 (also as [::1] or IPv4-mapped) and `localhost`: reachable from this host only. */
export function isLoopbackAddress(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  const v4 = h.startsWith('::ffff:') && isIPv4(h.slice(7)) ? h.slice(7) : h;
  if (isIPv4(v4)) return v4.startsWith('127.');
  return isIPv6(h) && /^(0{0,4}:){7}0{0,3}1$|^::1$|^(0{1,4}:){1,6}:1$/.test(h);
}

/**
 * Warnings for front ends that let anyone who can reach them load and unload models: explicit
 * model control (the only mode where load/unload act), a listen address other than loopback
 * (0.0.0.0 and :: are every interface), and no restriction on the model-repository category.
 */
export function exposureWarnings(modelControlMode: string, frontEnds: readonly FrontEndExposure[]): string[] {
  if (modelControlMode !== 'explicit') return [];
  return frontEnds
    .filter((f) => !f.restrictions.has('model-repository') && !isLoopbackAddress(f.host))
    .map((f) => `the model-repository API (load/unload) is reachable over ${f.name} on ${f.host} without restriction: `
      + 'anyone who can reach that address can load and unload models. Restrict it with '
      + `${FLAGS[f.name].restrict}=model-repository:<header>=<secret>, or listen on 127.0.0.1 (${FLAGS[f.name].address})`);
}
