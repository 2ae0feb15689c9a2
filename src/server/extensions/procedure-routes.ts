import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '../../core/errors.js';
import type { Procedure } from '../../core/schemas/procedure.js';
import type { Engram } from '../../engram.js';
import { tenantOf } from '../auth/principal.js';
import { readBody, readPath, readQuery } from '../request-parts.js';
import { agentPathSchema } from './agent-schemas.js';
import { extensionRoute } from './extension-route.js';
import {
  createProcedureBodySchema,
  listProceduresQuerySchema,
  procedureBodySchema,
  procedurePathSchema,
  toProcedureBody,
  updateProcedureBodySchema,
} from './procedure-schemas.js';

const tags = ['procedures'];

/**
 * Procedures of an agent: proposed (write), listed, read, edited (a new version), deleted, and
 * approved or rejected by an admin. A procedure of another agent or tenant is 404.
 */
export function registerProcedureRoutes(app: FastifyInstance, engram: Engram): void {
  /** The procedure named by the path, checked to belong to the path's agent. */
  async function procedureOf(request: FastifyRequest): Promise<{ tenantId: string; procedure: Procedure }> {
    const { agent_id, procedure_id } = readPath(request, procedurePathSchema);
    const tenantId = tenantOf(request);
    await engram.agents.resolve(tenantId, agent_id);
    const procedure = await engram.procedures.get(tenantId, procedure_id);
    if (procedure.agentId !== agent_id) throw new NotFoundError('Procedure', procedure_id);
    return { tenantId, procedure };
  }
  const one = { params: procedurePathSchema, response: procedureBodySchema, tags };

  app.post(
    '/v1/agents/:agent_id/procedures',
    {
      config: extensionRoute({
        summary: 'Propose a procedure (pending until approved)',
        tags,
        params: agentPathSchema,
        body: createProcedureBodySchema,
        response: procedureBodySchema,
        status: 201,
      }),
    },
    async (request, reply) => {
      const { agent_id } = readPath(request, agentPathSchema);
      const body = readBody(request, createProcedureBodySchema);
      const tenantId = tenantOf(request);
      await engram.agents.resolve(tenantId, agent_id);
      const procedure = await engram.procedures.create(tenantId, { ...body, agentId: agent_id });
      return reply.status(201).send(toProcedureBody(procedure));
    },
  );

  app.get(
    '/v1/agents/:agent_id/procedures',
    {
      config: extensionRoute({
        summary: 'List an agent’s procedures',
        tags,
        params: agentPathSchema,
        query: listProceduresQuerySchema,
        response: z.object({ procedures: z.array(procedureBodySchema) }),
      }),
    },
    async (request) => {
      const { agent_id } = readPath(request, agentPathSchema);
      const { status } = readQuery(request, listProceduresQuerySchema);
      const tenantId = tenantOf(request);
      await engram.agents.resolve(tenantId, agent_id);
      const procedures = await engram.procedures.list(tenantId, agent_id, status);
      return { procedures: procedures.map(toProcedureBody) };
    },
  );

  app.get(
    '/v1/agents/:agent_id/procedures/:procedure_id',
    { config: extensionRoute({ summary: 'Read a procedure', ...one }) },
    async (request) => toProcedureBody((await procedureOf(request)).procedure),
  );

  app.patch(
    '/v1/agents/:agent_id/procedures/:procedure_id',
    {
      config: extensionRoute({
        summary: 'Edit a procedure',
        description: 'Creates a new version with a new id; the old one is superseded.',
        body: updateProcedureBodySchema,
        ...one,
      }),
    },
    async (request) => {
      const body = readBody(request, updateProcedureBodySchema);
      const { tenantId, procedure } = await procedureOf(request);
      return toProcedureBody(await engram.procedures.update(tenantId, procedure.id, body));
    },
  );

  app.delete(
    '/v1/agents/:agent_id/procedures/:procedure_id',
    {
      config: extensionRoute({
        summary: 'Delete a procedure',
        params: procedurePathSchema,
        tags,
        status: 204,
      }),
    },
    async (request, reply) => {
      const { tenantId, procedure } = await procedureOf(request);
      await engram.procedures.delete(tenantId, procedure.id);
      return reply.status(204).send();
    },
  );

  for (const decision of ['approve', 'reject'] as const) {
    app.post(
      `/v1/agents/:agent_id/procedures/:procedure_id/${decision}`,
      {
        config: extensionRoute(
          {
            summary: decision === 'approve' ? 'Approve a procedure' : 'Reject a procedure',
            description: 'A new version (new id) with the status; only approved procedures enter contexts.',
            ...one,
          },
          'admin',
        ),
      },
      async (request) => {
        const { tenantId, procedure } = await procedureOf(request);
        return toProcedureBody(await engram.procedures[decision](tenantId, procedure.id));
      },
    );
  }
}
