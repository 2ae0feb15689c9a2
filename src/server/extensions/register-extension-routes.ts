import type { FastifyInstance } from 'fastify';
import type { Engram } from '../../engram.js';
import { registerAgentRoutes } from './agent-routes.js';
import { registerContextRoutes } from './context-routes.js';
import { registerInspectorRoutes } from './inspector-routes.js';
import { registerJobRoutes } from './job-routes.js';
import { registerKnowledgeRoutes } from './knowledge-routes.js';
import { registerProcedureRoutes } from './procedure-routes.js';
import { registerSessionListRoutes } from './session-list-routes.js';
import { registerWorkingSetRoutes } from './working-set-routes.js';

/**
 * engram's extension routes beyond AMS: agents, context assembly, knowledge, procedures, the
 * working set, the inspector's traces, and the session and job listings of the Memory Browser. All answer errors as `{"error": …}`.
 */
export function registerExtensionRoutes(app: FastifyInstance, engram: Engram): void {
  registerAgentRoutes(app, engram);
  registerContextRoutes(app, engram);
  registerKnowledgeRoutes(app, engram);
  registerProcedureRoutes(app, engram);
  registerWorkingSetRoutes(app, engram);
  registerInspectorRoutes(app, engram);
  registerSessionListRoutes(app, engram);
  registerJobRoutes(app, engram);
}
