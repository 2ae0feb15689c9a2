import { z } from 'zod';

/**
 * Roles a credential carries: `admin` (everything, including keys and metrics), `agent` (read and
 * write sessions and memories) and `inspector` (read, plus context traces).
 */
export const roles = ['admin', 'agent', 'inspector'] as const;
export const roleSchema = z.enum(roles);
export type Role = z.infer<typeof roleSchema>;

/** A tenant id: the security boundary. Never empty, so `''` is free for system records. */
export const tenantIdSchema = z.string().min(1).max(256);
