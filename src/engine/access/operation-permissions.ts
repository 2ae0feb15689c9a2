import type { Role } from '../../core/schemas/role.js';

/**
 * What an operation needs: `public` (no credential, e.g. health), `read` and `write` of sessions and
 * memories, `admin` (keys, agents, knowledge, approving procedures) and `inspect` (context traces).
 */
export type Permission = 'public' | 'read' | 'write' | 'admin' | 'inspect';

/** Which permissions each role grants. Inspector traces are readable only by `inspector` and `admin`. */
export const permissionsByRole: Record<Role, readonly Permission[]> = {
  admin: ['public', 'read', 'write', 'admin', 'inspect'],
  agent: ['public', 'read', 'write'],
  inspector: ['public', 'read', 'inspect'],
};

/** True when `role` holds `permission`. */
export const grants = (role: Role, permission: Permission): boolean =>
  permissionsByRole[role].includes(permission);

/** One operation offered by a transport: what it needs, its REST route and its MCP tool (if any). */
export interface Operation {
  permission: Permission;
  /** `METHOD /path` as the server registers it (Fastify `:param` syntax); null: MCP only. */
  rest: string | null;
  /** The MCP tool name; null: REST only. */
  mcp: string | null;
}

/**
 * THE permission table of every operation that MCP offers (most also over REST). Both transports
 * read it: the REST hook takes a listed route's permission from here (a route may not declare
 * another), and every MCP tool must be listed (define-tool.ts throws otherwise). Routes not listed
 * (REST only) declare their own, default `read` for GET and `write` otherwise.
 */
export const operations = {
  searchLongTermMemory: {
    permission: 'read',
    rest: 'POST /v1/long-term-memory/search',
    mcp: 'search_long_term_memory',
  },
  getLongTermMemory: {
    permission: 'read',
    rest: 'GET /v1/long-term-memory/:memory_id',
    mcp: 'get_long_term_memory',
  },
  createLongTermMemories: {
    permission: 'write',
    rest: 'POST /v1/long-term-memory',
    mcp: 'create_long_term_memories',
  },
  editLongTermMemory: {
    permission: 'write',
    rest: 'PATCH /v1/long-term-memory/:memory_id',
    mcp: 'edit_long_term_memory',
  },
  deleteLongTermMemories: {
    permission: 'write',
    rest: 'DELETE /v1/long-term-memory',
    mcp: 'delete_long_term_memories',
  },
  // Building a prompt records an inspector trace for the session: a write, on both transports.
  memoryPrompt: { permission: 'write', rest: 'POST /v1/memory/prompt', mcp: 'memory_prompt' },
  getWorkingMemory: {
    permission: 'read',
    rest: 'GET /v1/working-memory/:session_id',
    mcp: 'get_working_memory',
  },
  appendWorkingMemory: {
    permission: 'write',
    rest: 'POST /v1/working-memory/:session_id/messages',
    mcp: 'append_working_memory',
  },
  setWorkingMemoryData: {
    permission: 'write',
    rest: 'PATCH /v1/working-memory/:session_id',
    mcp: 'set_working_memory_data',
  },
  getLongTermMemoryHistory: {
    permission: 'read',
    rest: 'GET /v1/long-term-memory/:memory_id/history',
    mcp: 'get_long_term_memory_history',
  },
  // Assembling a turn records its trace: a write, as memory_prompt.
  assembleContext: { permission: 'write', rest: 'POST /v1/context', mcp: 'context.assemble' },
  searchKnowledge: { permission: 'read', rest: null, mcp: 'knowledge.search' },
  uploadKnowledge: {
    permission: 'admin',
    rest: 'POST /v1/agents/:agent_id/knowledge',
    mcp: 'knowledge.upload',
  },
  listProcedures: {
    permission: 'read',
    rest: 'GET /v1/agents/:agent_id/procedures',
    mcp: 'procedures.list',
  },
  getTask: { permission: 'read', rest: 'GET /v1/tasks/:task_id', mcp: 'tasks.get' },
  memoryQuery: { permission: 'read', rest: null, mcp: 'memory.query' },
  currentDatetime: { permission: 'read', rest: null, mcp: 'get_current_datetime' },
} as const satisfies Record<string, Operation>;

const byRoute = new Map<string, Permission>(
  Object.values(operations as Record<string, Operation>).flatMap((operation) =>
    operation.rest === null ? [] : [[operation.rest, operation.permission] as const],
  ),
);
const byTool = new Map<string, Permission>(
  Object.values(operations as Record<string, Operation>).flatMap((operation) =>
    operation.mcp === null ? [] : [[operation.mcp, operation.permission] as const],
  ),
);

/** The table's permission for a REST route (`url` in Fastify syntax, trailing slash ignored); undefined when not listed. */
export function routePermission(method: string, url: string): Permission | undefined {
  const path = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
  return byRoute.get(`${method} ${path}`);
}

/** The table's permission for an MCP tool; undefined when not listed. */
export const toolPermission = (name: string): Permission | undefined => byTool.get(name);
